import { Context, Deferred, Effect, Either, Layer, Option, Ref, Schema } from "effect"
import { StoreClient } from "../store-client/client.js"
import { LiveRowsLive } from "../warehouse/live-rows.js"
import { Loader, LoaderLive } from "../warehouse/loader.js"
import { migrate } from "../warehouse/migrate.js"
import { ScopesLive } from "../warehouse/scopes.js"
import { CATALOGUE, STREAMS, type StreamName } from "./catalogue.js"
import type { Outputs, ProgressSink, RunContext, RunMode, StreamIO } from "./context.js"
import { errorText, type RunSummary, type StreamResult, SyncFailed, unavailableReason } from "./errors.js"
import { acquireRunLock } from "./lock.js"
import { Runs, RunsLive } from "./runs.js"
import { SyncState, SyncStateLive } from "./state.js"

export type { RunSummary, StreamResult } from "./errors.js"

/** How progress is shown: a live display on a terminal, one log line per stream otherwise. */
export class Progress extends Context.Tag("shopsync/Progress")<Progress, ProgressSink & {
  readonly streamDone: (result: StreamResult) => Effect.Effect<void>
}>() {}

export interface SyncRequest {
  readonly streams: ReadonlyArray<StreamName>
  readonly mode: RunMode
  readonly waitForLock: boolean
  /** The user named the streams (--streams): one the store does not serve fails the run instead of being skipped. */
  readonly named: boolean
  readonly customersFullScanHours: number
  /** Hours between full passes over every parent of a child stream (variations, notes, terms, …); 0: every run. */
  readonly childrenFullPassHours: number
  /** Hours before a stream found unavailable is tried again. */
  readonly unavailableRecheckHours: number
  /** Hours between two looks for forced deletions (0: every run; a backfill always looks). */
  readonly deletionsHours: number
  /** Overrides of the catalogue's refresh intervals, by stream. */
  readonly refreshHours: Readonly<Record<string, number>>
}

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

type Ended = Readonly<Record<StreamName, Deferred.Deferred<void>>>

/** Each output starts empty, is written by its stream alone, and is read by the others once that stream has ended. */
const streamIO = (ended: Ended) =>
  Effect.gen(function*() {
    const outputs = {
      orders: yield* Ref.make<Outputs["orders"]>({ changed: new Set(), customers: new Set() }),
      customers: yield* Ref.make<Outputs["customers"]>({ changed: new Set() }),
      product_attributes: yield* Ref.make<Outputs["product_attributes"]>({ changed: [] }),
      shipping_zones: yield* Ref.make<Outputs["shipping_zones"]>({ changed: [] })
    }
    return {
      outputs,
      inputs: {
        orders: Effect.zipRight(Deferred.await(ended.orders), Ref.get(outputs.orders)),
        customers: Effect.zipRight(Deferred.await(ended.customers), Ref.get(outputs.customers)),
        product_attributes: Effect.zipRight(Deferred.await(ended.product_attributes), Ref.get(outputs.product_attributes)),
        shipping_zones: Effect.zipRight(Deferred.await(ended.shipping_zones), Ref.get(outputs.shipping_zones))
      }
    } satisfies StreamIO
  })

/**
 * Runs the selected streams of the catalogue, each once every stream it runs after has ended (or is not
 * selected); the store's other resources share STORE_CONCURRENCY slots. A stream reads another's output
 * once that one has ended; a failing stream does not stop the others.
 */
const runStreams = (ctx: RunContext, request: SyncRequest, addRows: (n: number) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const state = yield* SyncState
    const progress = yield* Progress
    const slots = yield* Effect.makeSemaphore(store.concurrency)
    const ended = Object.fromEntries(yield* Effect.forEach(STREAMS, (name) => Effect.map(Deferred.make<void>(), (d) => [name, d] as const))) as Ended
    const selected = request.streams
    for (const name of STREAMS) if (!selected.includes(name)) yield* Deferred.succeed(ended[name], undefined)
    const io = yield* streamIO(ended)

    const runOne = (name: StreamName) =>
      Effect.gen(function*() {
        const skipped = (yield* notDue(ctx, request, name)) ?? (yield* skipUnavailable(ctx, request, name))
        if (skipped) return skipped
        const t0 = Date.now()
        yield* state.started(name, ctx.runId)
        const outcome = yield* Effect.either(CATALOGUE[name].run(ctx, io))
        const unavailable = yield* availability(ctx, request, name, outcome)
        const error = Either.isLeft(outcome) && !unavailable ? failureText(name, outcome.left) : undefined
        const counts = Either.isRight(outcome) ? outcome.right : { rows: 0, deleted: 0 }
        yield* state.finished(name, counts.rows, error ?? null)
        yield* addRows(counts.rows)
        const result: StreamResult = { stream: name, ...counts, seconds: (Date.now() - t0) / 1000, ...(error ? { error } : {}), ...(unavailable ? { unavailable } : {}) }
        yield* progress.streamDone(result)
        return result
      })
    // A stream starts once those it runs after have ended; the other resources then wait for a slot too.
    const schedule = (name: StreamName) =>
      Effect.forEach(CATALOGUE[name].after, (before) => Deferred.await(ended[before]), { discard: true }).pipe(
        Effect.zipRight(CATALOGUE[name].sales ? runOne(name) : slots.withPermits(1)(runOne(name))),
        Effect.ensuring(Deferred.succeed(ended[name], undefined))
      )

    return yield* Effect.forEach(STREAMS.filter((name) => selected.includes(name)), schedule, { concurrency: "unbounded" })
  })

/** Why a stream failed; one the user named that the store does not serve says so. */
const failureText = (name: StreamName, e: unknown) => {
  const reason = name === "orders" ? undefined : unavailableReason(e)
  return reason === undefined ? errorText(e) : `the store does not serve this stream (${reason}); leave it out of --streams`
}

/** A plain sync runs a stream with a refresh interval only once that interval has passed since its last success. */
const notDue = (ctx: RunContext, request: SyncRequest, name: StreamName) =>
  Effect.gen(function*() {
    const every = request.refreshHours[name] ?? CATALOGUE[name].every
    if (request.named || every <= 0 || ctx.mode.kind === "backfill") return undefined
    const refreshedAt = yield* Effect.flatMap(SyncState, (state) => state.refreshedAt(name))
    if (refreshedAt === undefined || ctx.upper - refreshedAt >= every * 3600) return undefined
    yield* Effect.logDebug(`${name}: not due (refreshed every ${every} h)`)
    const result: StreamResult = { stream: name, rows: 0, deleted: 0, seconds: 0, skipped: `not due: refreshed every ${every} h` }
    return result
  })

/**
 * A stream found unavailable less than SHOPSYNC_UNAVAILABLE_RECHECK_HOURS ago is skipped without a request, unless
 * the user named it (then it is tried again, and fails if the store still does not serve it).
 */
const skipUnavailable = (ctx: RunContext, request: SyncRequest, name: StreamName) =>
  Effect.gen(function*() {
    const known = yield* Effect.flatMap(SyncState, (state) => state.unavailable(name))
    if (Option.isNone(known) || request.named || ctx.upper - known.value.checkedAt >= request.unavailableRecheckHours * 3600) return undefined
    yield* Effect.logInfo(`${name}: skipped, the store does not serve it (${known.value.reason}); tried again ` +
      `${request.unavailableRecheckHours} h after it was checked, or at once when named with --streams`)
    const result: StreamResult = { stream: name, rows: 0, deleted: 0, seconds: 0, unavailable: known.value.reason }
    return result
  })

/**
 * Whether a stream's outcome shows it unavailable on this store (recorded, with one warning; orders are never
 * unavailable: nothing else makes sense without them), or that a stream recorded unavailable is served again.
 */
const availability = (ctx: RunContext, request: SyncRequest, name: StreamName, outcome: Either.Either<unknown, unknown>) =>
  Effect.gen(function*() {
    const state = yield* SyncState
    const reason = Either.isLeft(outcome) && name !== "orders" && !request.named ? unavailableReason(outcome.left) : undefined
    if (reason === undefined) {
      if (Either.isRight(outcome)) yield* Effect.zipRight(state.markAvailable(name), state.markRefreshed(name, ctx.upper))
      return undefined
    }
    yield* Effect.logWarning(`${name}: unavailable on this store, skipped: ${reason}; tried again in ${request.unavailableRecheckHours} h, ` +
      `or at once when named with --streams`)
    yield* state.markUnavailable(name, { reason, checkedAt: ctx.upper })
    return reason
  })

/**
 * One sync or backfill: takes the store's lock, records the run, freezes an upper bound against the store's
 * clock, runs the streams, stores the daily sums of the days that changed. Returns undefined when another run
 * holds the lock (and `waitForLock` is off).
 */
export const runSync = (request: SyncRequest) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    yield* migrate
    if (!(yield* acquireRunLock(store.storeId, request.waitForLock))) return undefined
    return yield* Effect.provide(runLocked(request), repositories(store.storeId))
  }).pipe(Effect.scoped)

const runLocked = (request: SyncRequest) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const started = Date.now()
    // Its outcome is recorded from the scope's exit: succeeded, failed (a wrong key or URL fails at once, below), or interrupted.
    const run = yield* Effect.flatMap(Runs, (runs) => runs.begin(request.mode.kind, request.streams, store.requestCount))
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
    const results = yield* runStreams(ctx, request, run.addRows)
    yield* storeDailyTotals
    const summary: RunSummary = { runId: run.id, streams: results, requests: yield* store.requestCount, seconds: (Date.now() - started) / 1000 }
    const failures = results.filter((r) => r.error !== undefined).map((r) => ({ stream: r.stream, error: r.error! }))
    if (failures.length > 0) return yield* new SyncFailed({ runId: run.id, failures, summary })
    return summary
  })
