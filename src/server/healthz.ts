import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Duration, Effect, Option, Ref, Schema } from "effect"
import { errorText } from "../sync/errors.js"
import { Inbox } from "../webhooks/inbox.js"
import { ServeState } from "./serve-state.js"

/** How long the warehouse may take to answer `SELECT 1` before it counts as gone. */
const WAREHOUSE_TIMEOUT = Duration.seconds(2)

/**
 * How long the oldest pending delivery may wait before the inbox counts as stuck. A delivery is applied within a
 * second or two, one that errs is tried 5 times about a second apart, and a burst of 1,000 drains in about 20 s
 * (docs/operating.md): 10 minutes is far past any healthy wait, yet says so before the three-interval sync check would (15
 * minutes at the default 5m), and well before the store disables a subscription whose deliveries keep failing.
 */
const INBOX_MAX_WAIT = Duration.minutes(10)

/** The warehouse's answer to `SELECT 1` within WAREHOUSE_TIMEOUT, or the 503 saying it did not answer. */
const warehouseAnswers = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
  Effect.timeoutFail({ duration: WAREHOUSE_TIMEOUT, onTimeout: () => new Error(`no answer within ${Duration.format(WAREHOUSE_TIMEOUT)}`) }),
  Effect.map(() => undefined),
  Effect.catchAll((e) => Effect.succeed(unhealthy(`the warehouse does not answer: ${errorText(e)}`)))
)

const unhealthy = (reason: string, extra: Record<string, unknown> = {}) =>
  HttpServerResponse.unsafeJson({ status: "unhealthy", reason, ...extra }, { status: 503 })

/** Why the inbox is not being applied (the worker is down, or the oldest delivery waited past INBOX_MAX_WAIT), or undefined. */
const inboxStuck = Effect.gen(function*() {
  const state = yield* ServeState
  if (!(yield* Ref.get(state.inboxWorkerUp))) return unhealthy("the webhook inbox worker is not running")
  const age = yield* Effect.flatMap(Inbox, (inbox) => inbox.oldestPendingAge(state.storeId)).pipe(Effect.either)
  if (age._tag === "Left") return unhealthy(`the webhook inbox could not be read: ${errorText(age.left)}`)
  if (Option.isSome(age.right) && age.right.value > Duration.toSeconds(INBOX_MAX_WAIT)) {
    return unhealthy(`the oldest pending webhook delivery has waited ${age.right.value.toFixed(0)} s, more than ${Duration.format(INBOX_MAX_WAIT)}`)
  }
  return undefined
})

/**
 * GET /healthz: 200 when the warehouse answers, the inbox worker runs and its oldest delivery waited less than
 * INBOX_MAX_WAIT, and the last scheduled sync finished within three intervals; otherwise 503 with the reason, so a
 * load balancer or Kubernetes restarts or drains this process.
 */
export const healthz = Effect.gen(function*() {
  const state = yield* ServeState
  const down = yield* warehouseAnswers
  if (down !== undefined) return down
  const stuck = yield* inboxStuck
  if (stuck !== undefined) return stuck
  const last = yield* Ref.get(state.lastSyncAt)
  const age = (yield* Clock.currentTimeMillis) - last
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

/**
 * /healthz on the webhook listener, which anyone may reach: the status code, "ok" or "unhealthy", nothing else. The
 * reasons (the warehouse's error, the runner's address, the inbox's wait) are on the admin listener's /healthz.
 */
export const withoutReasons = <E, R>(health: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.map(health, (response) => HttpServerResponse.unsafeJson({ status: response.status === 200 ? "ok" : "unhealthy" }, { status: response.status }))
