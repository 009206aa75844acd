import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect, Ref } from "effect"
import { errorText } from "../sync/errors.js"
import { ServeState } from "./serve-state.js"

/** How long the warehouse may take to answer `SELECT 1` before it counts as gone. */
const WAREHOUSE_TIMEOUT = Duration.seconds(2)

/**
 * GET /healthz: 200 when the warehouse answers and the last scheduled sync finished within three intervals;
 * otherwise 503 with the reason, so a load balancer or Kubernetes restarts or drains this process.
 */
export const healthz = Effect.gen(function*() {
  const [state, sql] = yield* Effect.all([ServeState, SqlClient.SqlClient])
  const warehouse = yield* sql`SELECT 1`.pipe(
    Effect.timeoutFail({ duration: WAREHOUSE_TIMEOUT, onTimeout: () => new Error(`no answer within ${Duration.format(WAREHOUSE_TIMEOUT)}`) }),
    Effect.either
  )
  if (warehouse._tag === "Left") return HttpServerResponse.unsafeJson({ status: "unhealthy", reason: `the warehouse does not answer: ${errorText(warehouse.left)}` }, { status: 503 })
  const last = yield* Ref.get(state.lastSyncAt)
  const age = Date.now() - last
  const lastSync = new Date(last).toISOString()
  if (age > 3 * state.syncEveryMs) {
    return HttpServerResponse.unsafeJson({
      status: "unhealthy",
      reason: `the last scheduled sync finished at ${lastSync}, more than three intervals (3 × ${state.syncEveryMs / 1000} s) ago`,
      lastSync
    }, { status: 503 })
  }
  return HttpServerResponse.unsafeJson({ status: "ok", lastSync })
})
