import { Effect, Exit, Layer, Schema, Scope } from "effect"
import { StoreClient } from "../store-client/client.js"
import { LiveRowsLive } from "../warehouse/live-rows.js"
import { Loader, LoaderLive } from "../warehouse/loader.js"
import { migrate } from "../warehouse/migrate.js"
import { ScopesLive } from "../warehouse/scopes.js"
import { CATALOGUE, STREAMS, type StreamName } from "./catalogue.js"
import { Progress, type RunContext, type SyncRequest } from "./context.js"
import { errorText, type RunSummary, type StreamResult, SyncFailed } from "./errors.js"
import { acquireRunLock, tryResourcesLock } from "./lock.js"
import { makeScheduler } from "./scheduler.js"
import { Runs, RunsLive } from "./runs.js"
import { SyncStateLive } from "./state.js"

export type { RunSummary, StreamResult } from "./errors.js"
export { Progress, type SyncRequest } from "./context.js"

/** The warehouse as one store's run sees it. */
const repositories = (storeId: string) =>
  Layer.mergeAll(SyncStateLive(storeId), RunsLive(storeId), LoaderLive(storeId), LiveRowsLive(storeId), ScopesLive(storeId))

/** The store's clock, read from the Date header of one cheap request; ours if it sends none. */
const storeNow = Effect.flatMap(StoreClient, (store) =>
  store.list("/orders", { per_page: 1 }, Schema.Unknown).pipe(Effect.map((page) => Math.floor((page.serverTime?.getTime() ?? Date.now()) / 1000))))

/**
 * Stores the daily sums of the days written since they were last stored. The daily views stay exact
 * without it (they compute those days from the tables); it is what keeps them fast, so a failure here
 * is only worth a warning.
 */
const storeDailyTotals = Effect.flatMap(Loader, (loader) => loader.storeDailyTotals).pipe(
  Effect.catchAll((e) => Effect.logWarning(`daily totals not stored (the views compute them meanwhile): ${errorText(e)}`))
)

/**
 * One sync or backfill. The sales streams run under the store's run lock (an overlapping cron run exits at once,
 * or waits with --wait), which is released as soon as they and the daily sums are stored; the other resources
 * (long children passes among them) run under a lock of their own, so they never hold up the next run's sales
 * data: a run that finds that lock taken leaves them to the run that holds it. Returns undefined when another
 * run holds the run lock (and `waitForLock` is off).
 */
export const runSync = (request: SyncRequest) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    yield* migrate
    const sales = yield* Effect.acquireRelease(Scope.make(), (scope) => Scope.close(scope, Exit.void))
    if (!(yield* Scope.extend(acquireRunLock(store.storeId, request.waitForLock, request.waitSeconds), sales))) return undefined
    const resources = yield* tryResourcesLock(store.storeId)
    return yield* Effect.provide(runLocked(request, { releaseSales: Scope.close(sales, Exit.void), resources }), repositories(store.storeId))
  }).pipe(Effect.scoped)

interface Locks {
  readonly releaseSales: Effect.Effect<void>
  /** This run holds the resources lock: no other run is alive. */
  readonly resources: boolean
}

/** A stream of the other resources left to the run that is refreshing them. */
const busy = (name: StreamName): StreamResult => ({ stream: name, rows: 0, deleted: 0, seconds: 0, skipped: "another run is refreshing the other resources" })

const runLocked = (request: SyncRequest, locks: Locks) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const started = Date.now()
    // Its outcome is recorded from the scope's exit: succeeded, failed (a wrong key or URL fails at once, below), or interrupted.
    const run = yield* Effect.flatMap(Runs, (runs) => runs.begin(request.mode.kind, request.streams, store.requestCount, locks.resources))
    const upper = (yield* storeNow) - store.settleSeconds
    // What a run that stopped early left to store, so the views are fast while this one runs.
    yield* storeDailyTotals
    const ctx: RunContext = {
      storeId: store.storeId,
      runId: run.id,
      mode: request.mode,
      upper,
      progress: yield* Progress,
      childrenFullPassHours: request.childrenFullPassHours,
      customersFullScanHours: request.customersFullScanHours,
      deletionsHours: request.deletionsHours
    }
    const runPhase = yield* makeScheduler(ctx, request, run.addRows)
    const sales = yield* runPhase(request.streams.filter((name) => CATALOGUE[name].sales))
    yield* storeDailyTotals
    yield* locks.releaseSales
    const others = request.streams.filter((name) => !CATALOGUE[name].sales)
    const rest = locks.resources
      ? yield* runPhase(others)
      : yield* Effect.forEach(others.map(busy), (r) => Effect.as(Effect.flatMap(Progress, (p) => p.streamDone(r)), r))
    if (!locks.resources && others.length > 0) yield* Effect.logInfo("another run is refreshing the store's other resources; this one leaves them to it")
    const results = STREAMS.flatMap((name) => [...sales, ...rest].filter((r) => r.stream === name))
    const summary: RunSummary = { runId: run.id, streams: results, requests: yield* store.requestCount, seconds: (Date.now() - started) / 1000 }
    const failures = results.filter((r) => r.error !== undefined).map((r) => ({ stream: r.stream, error: r.error! }))
    if (failures.length > 0) return yield* new SyncFailed({ runId: run.id, failures, summary })
    return summary
  })
