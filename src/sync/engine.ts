import type * as SqlClient from "@effect/sql/SqlClient"
import { Context, Data, Deferred, Effect, Either, Exit } from "effect"
import { StoreClient } from "../store-client/client.js"
import { migrate } from "../warehouse/migrate.js"
import { sqlErrorText } from "../warehouse/sql-error.js"
import { query } from "../warehouse/writer.js"
import { type ProgressSink, RESOURCE_STREAMS, type RunContext, type RunMode, STREAMS, type StreamName } from "./context.js"
import { acquireRunLock } from "./lock.js"
import { RESOURCES } from "./resources/streams.js"
import { syncCustomers } from "./streams/customers.js"
import { syncOrders } from "./streams/orders.js"
import { syncProducts } from "./streams/products.js"
import { syncRefunds } from "./streams/refunds.js"
import { syncReports } from "./streams/reports.js"

export interface StreamResult {
  readonly stream: StreamName
  readonly rows: number
  readonly deleted: number
  readonly seconds: number
  readonly error?: string
}

export interface RunSummary {
  readonly runId: number
  readonly streams: ReadonlyArray<StreamResult>
  readonly requests: number
  readonly seconds: number
}

/** How progress is shown: a live display on a terminal, one log line per stream otherwise. */
export class Progress extends Context.Tag("shopsync/Progress")<Progress, ProgressSink & {
  readonly streamDone: (result: StreamResult) => Effect.Effect<void>
}>() {}

export class SyncFailed extends Data.TaggedError("SyncFailed")<{
  readonly runId: number
  readonly failures: ReadonlyArray<{ readonly stream: string; readonly error: string }>
}> {
  override get message() {
    const list = this.failures.map((f) => `${f.stream}: ${f.error}`).join("; ")
    return `sync run ${this.runId} failed in ${this.failures.length} stream(s): ${list}. ` +
      `Rows loaded before the failure are kept and each stream resumes from its last checkpoint on the next run.`
  }
}

export interface SyncRequest {
  readonly streams: ReadonlyArray<StreamName>
  readonly mode: RunMode
  readonly waitForLock: boolean
  readonly customersFullScanHours: number
  /** Hours between full passes over every parent of a child stream (variations, notes, terms, …); 0: every run. */
  readonly childrenFullPassHours: number
}

/** The store's clock, read from the Date header of one cheap request; ours if it sends none. */
const storeNow = Effect.flatMap(StoreClient, (store) =>
  store.list("/orders", { per_page: 1 }).pipe(Effect.map((page) => Math.floor((page.serverTime?.getTime() ?? Date.now()) / 1000))))

const INTERRUPTED = "interrupted: the process was stopped before the run finished; the next run resumes from the last checkpoints"

/**
 * One sync or backfill: takes the store's lock, freezes an upper bound, runs the streams (orders, refunds,
 * customers and products together; reports next, for the days the others touched; then the other
 * resources, children after the streams whose changes they follow), stores the daily sums of the days
 * that changed, and records the run. A failing stream does not stop the others.
 */
export const runSync = (request: SyncRequest) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const progress = yield* Progress
    yield* migrate
    const locked = yield* acquireRunLock(store.storeId, request.waitForLock)
    if (!locked) return undefined
    const started = Date.now()
    yield* query("run_mark_interrupted", [store.storeId])
    const [run] = yield* query<{ id: string }>("run_start", [store.storeId, request.mode.kind, request.streams])
    const runId = Number(run!.id)
    // A wrong key or URL fails here, before anything is loaded; the run says so, for `status`.
    const upper = (yield* storeNow.pipe(
      Effect.tapError((e) => Effect.flatMap(store.requestCount, (requests) => query("run_finish", [runId, "failed", 0, requests, errorText(e)])))
    )) - store.settleSeconds
    // What a run that stopped early left to store, so the views are fast while this one runs.
    yield* storeDailyTotals(store.storeId)
    const results: StreamResult[] = []
    // Stopped by a signal (cron's timeout, systemd, a Ctrl-C): the run is recorded as such at once.
    yield* Effect.addFinalizer((exit) =>
      Exit.isInterrupted(exit)
        ? Effect.flatMap(store.requestCount, (requests) =>
          query("run_finish", [runId, "failed", results.reduce((n, r) => n + r.rows, 0), requests, INTERRUPTED])).pipe(Effect.ignore)
        : Effect.void
    )
    const ordersDone = yield* Deferred.make<void>()
    const ctx: RunContext = {
      storeId: store.storeId,
      runId,
      mode: request.mode,
      upper,
      progress,
      changedOrders: new Set(),
      orderCustomers: new Set(),
      changedCustomers: new Set(),
      resourceChanges: new Map(),
      ordersDone: Deferred.await(ordersDone)
    }
    const selected = (name: StreamName) => request.streams.includes(name)

    const runStream = (name: StreamName, body: Effect.Effect<{ rows: number; deleted: number }, unknown, StoreClient | SqlClient.SqlClient>) =>
      selected(name)
        ? Effect.gen(function*() {
          const t0 = Date.now()
          yield* query("state_started", [ctx.storeId, name, runId])
          const outcome = yield* Effect.either(body)
          const error = Either.isLeft(outcome) ? errorText(outcome.left) : undefined
          const counts = Either.isRight(outcome) ? outcome.right : { rows: 0, deleted: 0 }
          const result: StreamResult = { stream: name, ...counts, seconds: (Date.now() - t0) / 1000, ...(error ? { error } : {}) }
          yield* query("state_finished", [ctx.storeId, name, counts.rows, error ?? null])
          yield* progress.streamDone(result)
          results.push(result)
        })
        : Effect.void

    // All at once, sharing the store's STORE_CONCURRENCY requests; what builds on the orders a run found
    // (refunds per order, customers by id) waits for ctx.ordersDone.
    yield* Effect.all([
      runStream("orders", syncOrders(ctx)).pipe(Effect.ensuring(Deferred.succeed(ordersDone, undefined))),
      runStream("refunds", syncRefunds(ctx, request.childrenFullPassHours)),
      runStream("customers", syncCustomers(ctx, request.customersFullScanHours)),
      runStream("products", syncProducts(ctx, request.childrenFullPassHours))
    ], { concurrency: "unbounded", discard: true })
    yield* runStream("reports", syncReports(ctx))
    for (const wave of [1, 2]) {
      yield* Effect.forEach(
        RESOURCE_STREAMS.filter((name) => RESOURCES[name].wave === wave),
        (name) => runStream(name, RESOURCES[name].run(ctx, request.childrenFullPassHours)),
        { concurrency: store.concurrency, discard: true }
      )
    }
    yield* storeDailyTotals(ctx.storeId)

    const failures = results.filter((r) => r.error !== undefined).map((r) => ({ stream: r.stream, error: r.error! }))
    const requests = yield* store.requestCount
    const rows = results.reduce((n, r) => n + r.rows, 0)
    yield* query("run_finish", [runId, failures.length ? "failed" : "succeeded", rows, requests, failures.length ? failures.map((f) => `${f.stream}: ${f.error}`).join("; ") : null])
    if (failures.length > 0) return yield* new SyncFailed({ runId, failures })
    const ordered = STREAMS.flatMap((s) => results.filter((r) => r.stream === s))
    return { runId, streams: ordered, requests, seconds: (Date.now() - started) / 1000 } satisfies RunSummary
  }).pipe(Effect.scoped)

/**
 * Stores the daily sums of the days written since they were last stored. The daily views stay exact
 * without it (they compute those days from the tables); it is what keeps them fast, so a failure here
 * is only worth a warning.
 */
const storeDailyTotals = (storeId: string) =>
  query("daily_totals_refresh", [storeId]).pipe(
    Effect.catchAll((e) => Effect.logWarning(`daily totals not stored (the views compute them meanwhile): ${errorText(e)}`))
  )

/** A stream's failure in one line; a warehouse error carries PostgreSQL's own message, not just "failed to execute". */
const errorText = (e: unknown): string =>
  sqlErrorText(e) ??
    (e instanceof Error ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e))
