import { randomUUID } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Data, Effect, Option, Schema } from "effect"
import { ClusterClientLive } from "../cluster/runner.js"
import type { StoreRunDone, StoreWorkFailed } from "../cluster/store-directory.js"
import { Store } from "../cluster/store-entity.js"
import { RunLockHeld } from "../sync/errors.js"

/** A sync or backfill a worker ran and that failed: exit 2 when some streams failed (as `shopsync sync`), else 1. */
export class ClusterRunFailed extends Data.TaggedError("ClusterRunFailed")<{ readonly message: string; readonly exitCode: number }> {}

const Count = Schema.Struct({ n: Schema.Number })

/**
 * How many workers are running: runners in the cluster's table (created by the first worker) whose heartbeat is
 * younger than the cluster's lock expiry (15 s) and that no health check marked unhealthy.
 */
export const runningWorkers = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [table] = yield* SqlSchema.findAll({ Request: Schema.Void, Result: Schema.Struct({ present: Schema.Boolean }),
    execute: () => sql`SELECT to_regclass('cluster_runners') IS NOT NULL AS present` })(undefined)
  if (table?.present !== true) return 0
  const [row] = yield* SqlSchema.findAll({ Request: Schema.Void, Result: Count, execute: () =>
    sql`SELECT count(*)::int AS n FROM cluster_runners WHERE healthy AND last_heartbeat > localtimestamp - interval '15 seconds'` })(undefined)
  return row?.n ?? 0
}).pipe(Effect.catchTag("ParseError", Effect.die))

export type ClusterJob = { readonly kind: "sync" } | { readonly kind: "backfill"; readonly since: string; readonly until: string }

/** Sends the job to the store's entity with a fresh key (new work, never a duplicate) and waits for its reply. */
const send = (storeId: string, job: ClusterJob) =>
  Effect.gen(function*() {
    const entity = (yield* Store.client)(storeId)
    const key = `manual-${randomUUID()}`
    return job.kind === "sync"
      ? yield* entity.SyncNow({ key })
      : Option.some(yield* entity.Backfill({ key, since: job.since, until: job.until }))
  }).pipe(Effect.provide(ClusterClientLive))

const out = (text: string) => Effect.sync(() => process.stdout.write(text))

/**
 * A registered store's sync or backfill run by the worker holding the store's shard, its outcome printed here with
 * the exit codes of a run here: 0 done, 2 some streams failed, 75 another run held the store's lock, 1 otherwise.
 */
export const runThroughCluster = (storeId: string, job: ClusterJob) =>
  Effect.gen(function*() {
    const done: Option.Option<StoreRunDone> = yield* send(storeId, job).pipe(
      Effect.catchTag("StoreWorkFailed", (e: StoreWorkFailed) =>
        Effect.zipRight(out(e.report ?? ""), Effect.fail(new ClusterRunFailed({ message: e.message, exitCode: e.partial === true ? 2 : 1 }))))
    )
    if (Option.isNone(done) || done.value.outcome === "skipped_locked") return yield* new RunLockHeld({ storeId })
    yield* out(`ran on worker ${done.value.runner}\n${done.value.report}`)
  })
