import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect, Option, Schema, type Scope } from "effect"
import { warehouseRetryConfig } from "../config/settings.js"
import { StoreClient } from "../store-client/client.js"
import type { LiveRows } from "../warehouse/live-rows.js"
import { Loader } from "../warehouse/loader.js"
import { withGuard } from "../warehouse/lease.js"
import type { Scopes } from "../warehouse/scopes.js"
import { CATALOGUE, STREAMS, type StreamName } from "./catalogue.js"
import { Progress, type RunContext, type SyncRequest } from "./context.js"
import { errorText, type RunSummary, type StreamResult, SyncFailed } from "./errors.js"
import { acquireRunLocks, type RunLocks } from "./lock.js"
import { makeScheduler } from "./scheduler.js"
import { Runs } from "./runs.js"
import { SyncState } from "./state.js"
import { driftOf } from "./reconcile/drift.js"
import type { Reconciliations } from "./reconcile/record.js"
import { reconcileIfDue } from "./reconcile/schedule.js"
import { runAttributes } from "./spans.js"

export type { RunSummary, StreamResult } from "./errors.js"
export { Progress, type SyncRequest } from "./context.js"

/**
 * The warehouse as one store's run sees it: its repositories, provided by the host that runs the job for that store
 * (jobs/layers.ts `withStoreRepositories`), on a warehouse the host has migrated.
 */
export type StoreRepositories = Runs | SyncState | Loader | LiveRows | Scopes | Reconciliations

/** What a run's body may use: the store, the warehouse, progress, and the store's repositories. */
type RunNeeds = StoreClient | SqlClient.SqlClient | Progress | Scope.Scope | StoreRepositories

/** The store's clock, read from the Date header of one cheap request (an order's id: its document is not needed); ours if it sends none. */
export const storeNow = Effect.flatMap(StoreClient, (store) =>
  store.list("/orders", { per_page: 1, _fields: "id" }, Schema.Unknown).pipe(
    Effect.flatMap((page) => page.serverTime === undefined ? Clock.currentTimeMillis : Effect.succeed(page.serverTime.getTime())),
    Effect.map((ms) => Math.floor(ms / 1000))
  ))

/**
 * Stores the daily sums of the days written since they were last stored. The daily views stay exact
 * without it (they compute those days from the tables); it is what keeps them fast, so a failure here
 * is only worth a warning.
 */
export const storeDailyTotals = Effect.flatMap(Loader, (loader) => loader.storeDailyTotals).pipe(
  Effect.catchAll((e) => Effect.logWarning(`daily totals not stored (the views compute them meanwhile): ${errorText(e)}`))
)

/**
 * One sync or backfill. The sales streams run under the store's run lock (an overlapping cron run exits at once,
 * or waits with --wait), which is released as soon as they and the daily sums are stored; the other resources
 * (long children passes among them) run under a lock of their own, so they never hold up the next run's sales
 * data: a run that finds that lock taken leaves them to the run that holds it. Each lock is a lease every write
 * of the phase proves (lock.ts): a run that loses one stops with RunLockLost and writes nothing more. Returns
 * undefined when another run holds the run lock (and `waitForLock` is off).
 */
export const runSync = Effect.fn("sync.run")(function*(request: SyncRequest) {
  yield* runAttributes(request)
  return yield* underRunLock({ command: request.mode.kind, streams: request.streams, wait: request.waitForLock, waitSeconds: request.waitSeconds }, (locks) =>
    runLocked(request, locks))
})

/**
 * `body` as a run of `command` recorded in sync.runs, under the store's run lock (waiting for it when asked), with
 * the store's repositories; undefined when another run holds the lock.
 */
export const underRunLock = <A, E>(
  run: { readonly command: string; readonly streams: ReadonlyArray<string>; readonly wait: boolean; readonly waitSeconds?: number | undefined },
  body: (locks: RunLocks) => Effect.Effect<A, E | SqlError, RunNeeds>
) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const retrySeconds = yield* warehouseRetryConfig
    const runs = yield* Runs
    const locks = yield* acquireRunLocks(store.storeId, {
      command: run.command,
      streams: run.streams,
      wait: run.wait,
      waitSeconds: run.waitSeconds,
      retrySeconds,
      record: (begun) => runs.track(begun, run.command, store.requestCount)
    })
    if (Option.isNone(locks)) return undefined
    return yield* locks.value.untilLost(body(locks.value))
  }).pipe(Effect.scoped)

/** A stream of the other resources left to the run that is refreshing them. */
const busy = (name: StreamName): StreamResult => ({ stream: name, rows: 0, deleted: 0, seconds: 0, skipped: "another run is refreshing the other resources" })

const runLocked = (request: SyncRequest, locks: RunLocks) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const started = yield* Clock.currentTimeMillis
    // Its outcome is recorded from the scope's exit: succeeded, failed (a wrong key or URL fails at once, below), or interrupted.
    const run = locks.run
    const upper = (yield* storeNow) - store.settleSeconds
    const sales = withGuard(locks.sales)
    // What a run that stopped early (or a webhook's write) left to store, so the views are fast while this one runs.
    if (run.dirtyDays) yield* sales(storeDailyTotals)
    if (request.fullRefresh) yield* sales(Effect.flatMap(SyncState, (state) => Effect.forEach(request.streams, state.forget, { discard: true })))
    const progress = yield* Progress
    const ctx: RunContext = {
      storeId: store.storeId,
      runId: run.id,
      mode: request.mode,
      upper,
      progress,
      childrenFullPassHours: request.childrenFullPassHours,
      childrenPassPercent: request.childrenPassPercent,
      childrenQuietDays: request.childrenQuietDays,
      customersFullScanHours: request.customersFullScanHours,
      deletionsHours: request.deletionsHours
    }
    // Under the sales lease: the streams' standings come from the snapshot their states are then read from.
    const runPhase = yield* sales(makeScheduler(ctx, request, run.addRows))
    const salesResults = yield* sales(Effect.zipLeft(runPhase(request.streams.filter((name) => CATALOGUE[name].sales)), storeDailyTotals))
    // The scheduled reconciliation, when due: after the sales streams, still under the run lock (reconcile/schedule.ts);
    // a run limited with --streams leaves it to a plain one.
    const verifyHours = request.named ? undefined : request.verifyHours
    const pass = yield* sales(Effect.tap(reconcileIfDue(ctx, verifyHours), (p) => (p === undefined ? Effect.void : storeDailyTotals)))
    yield* locks.releaseSales
    const others = request.streams.filter((name) => !CATALOGUE[name].sales)
    const rest = Option.isSome(locks.resources)
      ? yield* withGuard(locks.resources.value)(runPhase(others))
      : yield* Effect.forEach(others.map(busy), (r) => Effect.as(Effect.flatMap(Progress, (p) => p.streamDone(r)), r))
    if (Option.isNone(locks.resources) && others.length > 0) yield* Effect.logInfo("another run is refreshing the store's other resources; this one leaves them to it")
    const results = STREAMS.flatMap((name) => [...salesResults, ...rest].filter((r) => r.stream === name))
    const drift = pass === undefined ? [] : driftOf(pass)
    const summary: RunSummary = {
      runId: run.id, streams: results, requests: yield* store.requestCount, seconds: ((yield* Clock.currentTimeMillis) - started) / 1000, ...(drift.length > 0 ? { drift } : {})
    }
    yield* store.logPace(progress.routine)
    const failures = results.filter((r) => r.error !== undefined).map((r) => ({ stream: r.stream, error: r.error! }))
    if (failures.length > 0) return yield* new SyncFailed({ runId: run.id, failures, summary })
    return summary
  })
