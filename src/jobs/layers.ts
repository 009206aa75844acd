import { Effect, Layer } from "effect"
import { type MarketingSettings, type StoreSettings, warehouseRetryConfig } from "../config/settings.js"
import { HttpClientsLive } from "../http-client/clients.js"
import { MarketingLive } from "../marketing-client/client.js"
import { StoreClientLive } from "../store-client/client.js"
import { Reconciliations } from "../sync/reconcile/record.js"
import { Runs } from "../sync/runs.js"
import { SyncState } from "../sync/state.js"
import { CurrentStore } from "../warehouse/current-store.js"
import { LiveRows } from "../warehouse/live-rows.js"
import { Loader } from "../warehouse/loader.js"
import { migrate } from "../warehouse/migrate.js"
import { Quarantine } from "../warehouse/quarantine.js"
import { retryStartup } from "../warehouse/reconnect.js"
import { Scopes } from "../warehouse/scopes.js"
import { ProgressLive } from "./progress.js"

/** A store's client over undici. */
export const storeClientLayer = (settings: StoreSettings) => StoreClientLive(settings).pipe(Layer.provide(HttpClientsLive))

/** The marketing client over undici. */
export const marketingLayer = (settings: MarketingSettings) => MarketingLive(settings).pipe(Layer.provide(HttpClientsLive))

/** What a sync needs besides the warehouse (provided once per job): the store client, progress display. */
export const syncLayer = (settings: StoreSettings) => Layer.mergeAll(storeClientLayer(settings), ProgressLive())

/** One store's repositories (the engine's StoreRepositories), provided once per job by the host running it. */
export const storeWarehouse = (storeId: string) =>
  Layer.mergeAll(Runs.Default, SyncState.Default, Loader.Default, LiveRows.Default, Scopes.Default, Reconciliations.Default).pipe(
    Layer.provide(CurrentStore.layer(storeId))
  )

/** What `status`, the status page and /metrics read of one store, provided per read. */
export const storeReaders = (storeId: string) =>
  Layer.mergeAll(SyncState.Default, Runs.Default, Quarantine.Default, Reconciliations.Default).pipe(Layer.provide(CurrentStore.layer(storeId)))

/**
 * The warehouse brought up to date once, as the host builds StoreJobs, not at every job: a worker's jobs no longer
 * queue on the migration lock. A warehouse restarting as the host starts is waited for, as later in a run.
 */
export const MigratedWarehouse = Layer.effectDiscard(Effect.flatMap(warehouseRetryConfig, (seconds) => retryStartup(seconds)(migrate)))
