import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect, Ref, Schema } from "effect"
import { errorText } from "../sync/errors.js"
import { ServeState } from "./serve-state.js"

/** How long the warehouse may take to answer `SELECT 1` before it counts as gone. */
const WAREHOUSE_TIMEOUT = Duration.seconds(2)

/**
 * GET /healthz: 200 when the warehouse answers and the last scheduled sync finished within three intervals;
 * otherwise 503 with the reason, so a load balancer or Kubernetes restarts or drains this process.
 */
/** The warehouse's answer to `SELECT 1` within WAREHOUSE_TIMEOUT, or the 503 saying it did not answer. */
const warehouseAnswers = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
  Effect.timeoutFail({ duration: WAREHOUSE_TIMEOUT, onTimeout: () => new Error(`no answer within ${Duration.format(WAREHOUSE_TIMEOUT)}`) }),
  Effect.map(() => undefined),
  Effect.catchAll((e) => Effect.succeed(unhealthy(`the warehouse does not answer: ${errorText(e)}`)))
)

const unhealthy = (reason: string, extra: Record<string, unknown> = {}) =>
  HttpServerResponse.unsafeJson({ status: "unhealthy", reason, ...extra }, { status: 503 })

export const healthz = Effect.gen(function*() {
  const state = yield* ServeState
  const down = yield* warehouseAnswers
  if (down !== undefined) return down
  const last = yield* Ref.get(state.lastSyncAt)
  const age = Date.now() - last
  const lastSync = new Date(last).toISOString()
  if (age > 3 * state.syncEveryMs) {
    return unhealthy(`the last scheduled sync finished at ${lastSync}, more than three intervals (3 × ${state.syncEveryMs / 1000} s) ago`, { lastSync })
  }
  return HttpServerResponse.unsafeJson({ status: "ok", lastSync })
})

const Registered = Schema.Array(Schema.Struct({ healthy: Schema.Boolean, age: Schema.Number }))

/**
 * GET /healthz of a worker: 200 when the warehouse answers and this runner (`address`, host:port) is in the cluster's
 * runner table, marked healthy, with a heartbeat younger than `maxAge` (the others drop it from their ring past that).
 */
export const runnerHealthz = (address: string, maxAge: Duration.Duration) =>
  Effect.gen(function*() {
    const down = yield* warehouseAnswers
    if (down !== undefined) return down
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT healthy, extract(epoch FROM now()::timestamp - last_heartbeat)::float8 AS age
                            FROM cluster_runners WHERE address = ${address}`.pipe(Effect.flatMap(Schema.decodeUnknown(Registered)), Effect.either)
    if (rows._tag === "Left") return unhealthy(`the cluster's runner table could not be read: ${errorText(rows.left)}`)
    const row = rows.right[0]
    if (row === undefined) return unhealthy(`runner ${address} is not registered in the cluster (starting, or stopping)`)
    if (!row.healthy) return unhealthy(`runner ${address} is marked unhealthy by the cluster`)
    if (row.age > Duration.toSeconds(maxAge)) return unhealthy(`runner ${address}'s last heartbeat is ${row.age.toFixed(0)} s old`)
    return HttpServerResponse.unsafeJson({ status: "ok", runner: address })
  })
