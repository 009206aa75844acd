import { ConfigProvider, Effect, Layer, Logger, LogLevel, ManagedRuntime, Redacted } from "effect"
import { startStoreSimulator, type StoreSimulator, type StoreSimulatorOptions } from "../../src/simulator/store/index.js"
import { dailyNetSales } from "../../src/simulator/store/reports/reference.js"
import { type StoreSettings, storeSettingsConfig } from "../../src/config/settings.js"
import { HttpClientsLive } from "../../src/http-client/clients.js"
import type { RetryPolicy } from "../../src/http-client/retry.js"
import { StoreClient, StoreClientLive } from "../../src/store-client/client.js"
import { SALES_STREAMS, type StreamName } from "../../src/sync/catalogue.js"
import type { RunMode } from "../../src/sync/context.js"
import { SyncState } from "../../src/sync/state.js"
import type { StreamStatus } from "../../src/sync/stream-status.js"
import { Progress, runSync, type StoreRepositories, type SyncRequest } from "../../src/sync/engine.js"
import { storeWarehouse } from "../../src/jobs/layers.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { migrate } from "../../src/warehouse/migrate.js"
import { freshDatabase, sqlRows } from "./database.js"
import { netSalesOf } from "./net-sales.js"

export const STORE_ID = "test"

const SilentProgress = Layer.succeed(Progress, Progress.of({ page: () => Effect.void, streamDone: () => Effect.void, done: () => Effect.void, routine: LogLevel.Debug }))

/** The real sync engine between a store API and a fresh warehouse database, with what tests read back. */
export interface WarehouseHarness {
  readonly dbUrl: string
  readonly sync: (options?: SyncOptions) => ReturnType<typeof runPromiseSync>
  readonly rows: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>
  /** analytics.daily_net_sales in the reference's shape, for direct comparison. */
  readonly netSales: () => Promise<Array<Record<string, string | number>>>
  readonly requests: () => Promise<number>
  /** Runs an effect against the harness's store client and warehouse (e.g. `runVerify`). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, HarnessServices>) => Promise<A>
  /** What `shopsync status` shows per stream. */
  readonly status: () => Promise<ReadonlyArray<StreamStatus>>
  readonly close: () => Promise<void>
}

/** A warehouse harness in front of the store simulator. */
export interface Harness extends WarehouseHarness {
  readonly sim: StoreSimulator
  /** The simulator's own computation from its in-memory state. */
  readonly expectedNetSales: () => Array<Record<string, string | number>>
}

interface SyncOptions {
  streams?: ReadonlyArray<StreamName>
  mode?: RunMode
  wait?: boolean
  /** SHOPSYNC_CUSTOMERS_FULL_SCAN_HOURS; default 0 (a full scan every run). */
  customersFullScanHours?: number
  /** SHOPSYNC_CHILDREN_FULL_PASS_HOURS; default 24, as in production (0: every parent every run). */
  childrenFullPassHours?: number
  /** As if the streams were named with --streams (default: when `streams` is given): they run whether due or not, and one the store does not serve fails. */
  named?: boolean
  /** SHOPSYNC_CHILDREN_PASS_PERCENT; default 100 (a whole pass in one run; production's is 10). */
  childrenPassPercent?: number
  /** SHOPSYNC_CHILDREN_QUIET_DAYS; default 0 (every pass reads every parent; production's is 30). */
  childrenQuietDays?: number
  /** SHOPSYNC_UNAVAILABLE_RECHECK_HOURS; default 24. */
  unavailableRecheckHours?: number
  /** SHOPSYNC_DELETIONS_HOURS; default 0 (every run), as in production. */
  deletionsHours?: number
  /** SHOPSYNC_REFRESH_HOURS. */
  refreshHours?: Readonly<Record<string, number>>
  /** SHOPSYNC_VERIFY_HOURS; default: no scheduled reconciliation. */
  verifyHours?: number
}

/** What the harness's runtime provides: the store, the warehouse (migrated once, as a host does) and the test store's repositories. */
type HarnessServices = StoreClient | Progress | import("@effect/sql").SqlClient.SqlClient | StoreRepositories
type Runtime = ManagedRuntime.ManagedRuntime<HarnessServices, unknown>
const runPromiseSync = (runtime: Runtime, options: SyncOptions) => runtime.runPromise(runSync(syncRequest(options)))

/** The request `h.sync(options)` runs, for a test that runs it its own way (under a tracer, say). */
export const syncRequest = (options: SyncOptions = {}): SyncRequest => ({
    streams: options.streams ?? SALES_STREAMS,
    mode: options.mode ?? { kind: "sync" },
    waitForLock: options.wait ?? false,
    named: options.named ?? options.streams !== undefined,
    unavailableRecheckHours: options.unavailableRecheckHours ?? 24,
    deletionsHours: options.deletionsHours ?? 0,
    refreshHours: options.refreshHours ?? {},
    customersFullScanHours: options.customersFullScanHours ?? 0,
    childrenFullPassHours: options.childrenFullPassHours ?? 24,
    childrenPassPercent: options.childrenPassPercent ?? 100,
    childrenQuietDays: options.childrenQuietDays ?? 0,
    ...(options.verifyHours === undefined ? {} : { verifyHours: options.verifyHours })
})

/** A simulator over real HTTP, a fresh database on the embedded server, and the real sync engine between them. */
export const makeHarness = async (
  simOptions: StoreSimulatorOptions = {},
  storeOptions: Partial<StoreSettings> = {}
): Promise<Harness> => {
  const sim = await startStoreSimulator(simOptions)
  const settings: StoreSettings = {
    apiUrl: sim.url,
    consumerKey: Redacted.make("ck_demo"),
    consumerSecret: Redacted.make("cs_demo"),
    storeId: STORE_ID,
    perPage: 100,
    settleSeconds: 0,
    maxAttempts: 6,
    requestTimeoutMs: 5_000,
    concurrency: 4,
    ...storeOptions
  }
  // The simulator answers at once: retries need no production-sized pauses.
  const policy = { maxAttempts: settings.maxAttempts, baseDelayMs: 5, maxDelayMs: 50, timeoutMs: settings.requestTimeoutMs }
  const harness = await connectHarness(settings, policy, () => sim.close())
  return { ...harness, sim, expectedNetSales: () => dailyNetSales(sim.state).map((r) => ({ ...r })) }
}

/** Where an external store answers (a real WooCommerce): its API root and REST key. */
export interface ExternalStore {
  readonly apiUrl: string
  readonly consumerKey: string
  readonly consumerSecret: string
}

/**
 * The same harness against a store running elsewhere, with the settings and retry policy production derives
 * from STORE_API_URL, STORE_CONSUMER_KEY and STORE_CONSUMER_SECRET alone (STORE_AUTH auto: OAuth 1.0a over
 * plain http), so a test meets the store as a deployment would. The store itself is the caller's to stop.
 */
export const makeStoreHarness = async (store: ExternalStore): Promise<WarehouseHarness> => {
  const env = new Map([
    ["STORE_API_URL", store.apiUrl],
    ["STORE_CONSUMER_KEY", store.consumerKey],
    ["STORE_CONSUMER_SECRET", store.consumerSecret],
    ["STORE_ID", STORE_ID]
  ])
  const settings = Effect.runSync(storeSettingsConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(env))))
  return connectHarness(settings, undefined, async () => {})
}

const connectHarness = async (settings: StoreSettings, policy: RetryPolicy | undefined, closeStore: () => Promise<void>): Promise<WarehouseHarness> => {
  const db = await freshDatabase()
  const warehouse = pgLayer(Redacted.make(db.url))
  const layer = Layer.mergeAll(
    StoreClientLive(settings, policy).pipe(Layer.provide(HttpClientsLive)),
    Layer.effectDiscard(Logger.withMinimumLogLevel(migrate, LogLevel.None)).pipe(Layer.provideMerge(storeWarehouse(STORE_ID)), Layer.provideMerge(warehouse)),
    SilentProgress,
    Logger.minimumLogLevel(LogLevel.None)
  )
  const runtime = ManagedRuntime.make(layer) as unknown as Runtime
  // Built now, so the warehouse is migrated before a test reads it or pushes from it.
  await runtime.runtime()
  const rows = <T,>(text: string, params: unknown[] = []) => sqlRows<T>(db.url, text, params)
  return {
    dbUrl: db.url,
    sync: (options = {}) => runPromiseSync(runtime, options),
    rows,
    netSales: () => netSalesOf(rows, STORE_ID),
    requests: () => runtime.runPromise(Effect.flatMap(StoreClient, (s) => s.requestCount)),
    run: (effect) => runtime.runPromise(effect),
    status: () => runtime.runPromise(Effect.flatMap(SyncState, (s) => s.status({}))),
    close: async () => {
      await runtime.dispose()
      await closeStore()
      await db.drop()
    }
  }
}
