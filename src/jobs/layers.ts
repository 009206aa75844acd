import { Context, Effect, Layer } from "effect"
import { type MarketingSettings, type StoreSettings, warehouseRetryConfig } from "../config/settings.js"
import { HttpClientsLive } from "../http-client/clients.js"
import { MarketingLive } from "../marketing-client/client.js"
import { StoreClientLive } from "../store-client/client.js"
import { makeReconciliations, Reconciliations } from "../sync/reconcile/record.js"
import { makeRuns, Runs } from "../sync/runs.js"
import { makeSyncState, SyncState } from "../sync/state.js"
import { CurrentStore } from "../warehouse/current-store.js"
import { LiveRows, makeLiveRows } from "../warehouse/live-rows.js"
import { Loader, makeLoader } from "../warehouse/loader.js"
import { migrate } from "../warehouse/migrate.js"
import { Quarantine } from "../warehouse/quarantine.js"
import { retryStartup } from "../warehouse/reconnect.js"
import { makeScopes, Scopes } from "../warehouse/scopes.js"
import { ProgressLive } from "./progress.js"

/** A store's client with an HTTP agent of its own: a command that talks to the store outside a job. */
export const storeClientLayer = (settings: StoreSettings) => StoreClientLive(settings).pipe(Layer.provide(HttpClientsLive))

/** The marketing client with an HTTP agent of its own: a command outside a job. */
export const marketingLayer = (settings: MarketingSettings) => MarketingLive(settings).pipe(Layer.provide(HttpClientsLive))

/**
 * What a sync needs besides the warehouse (provided once per job): the store client and progress display. The client
 * runs on the host's HTTP agent (HttpClients, provided once with StoreJobs): an agent per job cost each job about a
 * millisecond of CPU and opened new connections to its store.
 */
export const syncLayer = (settings: StoreSettings) => Layer.mergeAll(StoreClientLive(settings), ProgressLive())

/**
 * One store's repositories (the engine's StoreRepositories), made in one effect: as a graph of six layers they cost
 * every job about 7 ms of CPU (each layer's build: a memo map entry, a scope, a fiber), against 1.7 ms for a store
 * request (measured on the simulator, 2026-11-28).
 */
export const storeRepositories = (storeId: string) =>
  Effect.all([makeRuns, makeSyncState, makeLoader, makeLiveRows, makeScopes, makeReconciliations]).pipe(
    Effect.map(([runs, state, loader, live, scopes, reconciliations]) =>
      Context.make(Runs, Runs.make(runs)).pipe(
        Context.add(SyncState, SyncState.make(state)),
        Context.add(Loader, Loader.make(loader)),
        Context.add(LiveRows, LiveRows.make(live)),
        Context.add(Scopes, Scopes.make(scopes)),
        Context.add(Reconciliations, Reconciliations.make(reconciliations))
      )),
    Effect.provideService(CurrentStore, { storeId })
  )

/** `effect` with one store's repositories, made for it: what a host does once per job. */
export const withStoreRepositories = (storeId: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(storeRepositories(storeId), (repositories) => Effect.provide(effect, repositories))

/** The same repositories as a layer, for a runtime that serves one store (tests, tools). */
export const storeWarehouse = (storeId: string) => Layer.effectContext(storeRepositories(storeId))

/** What `status`, the status page and /metrics read of one store, provided per read. */
export const storeReaders = (storeId: string) =>
  Layer.mergeAll(SyncState.Default, Runs.Default, Quarantine.Default, Reconciliations.Default).pipe(Layer.provide(CurrentStore.layer(storeId)))

/**
 * The warehouse brought up to date once, as the host builds StoreJobs, not at every job: a worker's jobs no longer
 * queue on the migration lock. A warehouse restarting as the host starts is waited for, as later in a run.
 */
export const MigratedWarehouse = Layer.effectDiscard(Effect.flatMap(warehouseRetryConfig, (seconds) => retryStartup(seconds)(migrate)))
