import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Clock, Effect, Exit, Option, Ref, Schema, type Scope } from "effect"
import { CurrentStore } from "../warehouse/current-store.js"
import { retryConnection } from "../warehouse/reconnect.js"
import { type Drift, errorText, type RunSummary, streamOutcome, SyncFailed } from "./errors.js"
import { INTERRUPT, logOutcome, type RunOutcome } from "./outcome.js"

/** A run in progress: its id, and the rows its streams wrote so far. */
export interface Run {
  readonly id: number
  readonly addRows: (rows: number) => Effect.Effect<void>
  /** Days awaited their daily sums as it began (a run that stopped early, a webhook's write): it stores them first. */
  readonly dirtyDays: boolean
}

export const RecentRun = Schema.Struct({
  run: Schema.String,
  command: Schema.String,
  status: Schema.String,
  outcome: Schema.String,
  started: Schema.String,
  seconds: Schema.String,
  rows: Schema.String,
  requests: Schema.String,
  error: Schema.String
})
export type RecentRun = typeof RecentRun.Type

const INTERRUPTED = "interrupted: the process was stopped before the run finished; the next run resumes from the last checkpoints"

export const KnownStore = Schema.Struct({ store: Schema.String, last_started: Schema.String })
export type KnownStore = typeof KnownStore.Type

interface Ended {
  readonly status: "succeeded" | "failed"
  readonly outcome: RunOutcome
  readonly error: string | null
  /** The summary of a run that got to its end (all streams ran, some may have failed). */
  readonly summary: RunSummary | undefined
  /** What the outcome line covers: the run's failure, or the interrupt. */
  readonly covers: unknown
}

const isSummary = (v: unknown): v is RunSummary => typeof v === "object" && v !== null && "runId" in v && "streams" in v

/** How a run that ended with `exit` ended. */
const ended = (exit: Exit.Exit<unknown, unknown>): Ended => {
  if (Exit.isSuccess(exit)) return { status: "succeeded", outcome: "succeeded", error: null, summary: isSummary(exit.value) ? exit.value : undefined, covers: undefined }
  if (Cause.isInterruptedOnly(exit.cause)) return { status: "failed", outcome: "interrupted", error: INTERRUPTED, summary: undefined, covers: INTERRUPT }
  const failure = Option.getOrElse(Cause.failureOption(exit.cause), () => Cause.squash(exit.cause))
  return failure instanceof SyncFailed
    ? { status: "failed", outcome: "partial_failure", error: failure.list, summary: failure.summary, covers: failure }
    : { status: "failed", outcome: "failed", error: errorText(failure), summary: undefined, covers: failure }
}

const streamResults = (summary: RunSummary | undefined) =>
  summary === undefined ? null : JSON.stringify(summary.streams.map((s) => ({
    stream: s.stream,
    outcome: streamOutcome(s),
    rows: s.rows,
    deleted: s.deleted,
    seconds: Math.round(s.seconds * 10) / 10,
    ...(s.error ? { error: s.error } : {}),
    ...(s.unavailable ? { reason: s.unavailable } : s.skipped ? { reason: s.skipped } : {})
  })))

const driftText = (d: Drift) =>
  `${d.resource} (${d.missing.length} missing, ${d.stale.length} stale, ${d.gone.length} gone; ${d.repaired} repaired)`

/** The run's summary line: error for a failure or partial failure, warning for an interrupt, info for success. */
const logEnd = (id: number, command: string, end: Ended, figures: { rows: number; requests: number; seconds: number }) => {
  const failed = end.summary?.streams.filter((s) => s.error !== undefined).map((s) => s.stream) ?? []
  const drift = end.summary?.drift ?? []
  const fields = {
    run: id, command, outcome: end.outcome, ...figures, failed_streams: failed, ...(end.error ? { error: end.error } : {}), ...(drift.length > 0 ? { drift } : {})
  }
  const done = `${figures.rows} rows, ${figures.requests} requests in ${figures.seconds.toFixed(1)} s`
  switch (end.outcome) {
    case "succeeded":
      // The scheduled reconciliation found rows the sync had missed: repaired, but worth a look (a warning).
      return drift.length > 0
        ? logOutcome("warning", `run ${id} succeeded: ${done}; its reconciliation found drift in ${drift.map(driftText).join(", ")}`, fields)
        : logOutcome("info", `run ${id} succeeded: ${done}`, fields)
    case "partial_failure":
      return logOutcome("error", `run ${id} partly failed: ${failed.join(", ")} failed, the other streams ran (${done})`, fields, end.covers)
    case "interrupted":
      return logOutcome("warning", `run ${id} interrupted after ${done}; the next run resumes from the last checkpoints`, fields, end.covers)
    default:
      return logOutcome("error", `run ${id} failed: ${end.error}`, fields, end.covers)
  }
}

/** The service as its layer makes it; a job makes a store's repositories with it in one go (jobs/layers.ts). */
export const makeRuns = Effect.gen(function*() {
  const { storeId } = yield* CurrentStore
  const sql = yield* SqlClient.SqlClient
  const finish = (
    run: { id: number; command: string; started: number; rows: Ref.Ref<number> },
    exit: Exit.Exit<unknown, unknown>,
    requests: Effect.Effect<number>
  ) =>
    Effect.gen(function*() {
      const end = ended(exit)
      const figures = { rows: yield* Ref.get(run.rows), requests: yield* requests, seconds: ((yield* Clock.currentTimeMillis) - run.started) / 1000 }
      yield* sql`UPDATE sync.runs SET finished_at = now(), status = ${end.status}, outcome = ${end.outcome}, rows = ${figures.rows},
                   requests = ${figures.requests}, error = ${end.error}, stream_results = ${streamResults(end.summary)}::jsonb
                 WHERE id = ${run.id} AND status = 'running'`.pipe(
        // A connection the pool kept from before a warehouse restart fails once: the outcome is written on another.
        retryConnection(5),
        Effect.catchAll((e) => Effect.logWarning(`run ${run.id}: its outcome was not recorded: ${errorText(e)}`))
      )
      yield* logEnd(run.id, run.command, end, figures)
    })
  return {
    /**
     * Keeps a run its start recorded (sync.begin_run, lock.ts) for the scope's lifetime: its end (succeeded,
     * partial_failure, failed with the error, or interrupted by a signal) is written, and logged as the run's summary
     * line, from the scope's exit, whatever ends it.
     */
    track: (begun: { readonly id: number; readonly dirtyDays: boolean }, command: string, requests: Effect.Effect<number>): Effect.Effect<Run, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.map(Clock.currentTimeMillis, (started) => ({ id: begun.id, command, started, rows: Ref.unsafeMake(0) })),
        (run, exit) => finish(run, exit, requests)
      ).pipe(Effect.map((run): Run => ({ id: run.id, dirtyDays: begun.dirtyDays, addRows: (n) => Ref.update(run.rows, (r) => r + n) }))),
    /**
     * Records and logs a run that did nothing because another one held the store's lock (`failure` says so; the
     * line covers it). Its row is 'skipped', finished as it starts: it never counts as a run left running.
     */
    skipped: (command: string, streams: ReadonlyArray<string>, failure: Error): Effect.Effect<void> =>
      Effect.gen(function*() {
        const inserted = yield* sql<{ id: string }>`
          INSERT INTO sync.runs (store_id, command, streams, finished_at, status, outcome, error)
          VALUES (${storeId}, ${command}, ${streams}::text[], now(), 'skipped', 'skipped_locked', ${failure.message}) RETURNING id`.pipe(
          Effect.map((rows) => Number(rows[0]!.id)),
          Effect.catchAll((e) => Effect.as(Effect.logWarning(`a skipped run was not recorded: ${errorText(e)}`), null))
        )
        yield* logOutcome("warning", `run ${inserted ?? ""} skipped: ${failure.message}`, {
          run: inserted, command, outcome: "skipped_locked", rows: 0, requests: 0, seconds: 0, failed_streams: [], error: failure.message
        }, failure)
      }),
    /** Every store the warehouse holds runs of (whatever the store configured), with its last run's start. */
    stores: sql`
      SELECT store_id AS store, to_char(max(started_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_started
      FROM sync.runs GROUP BY store_id ORDER BY max(started_at) DESC`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(KnownStore))), Effect.orDie),
    /** The last runs, newest first, with the full error text. */
    recent: (limit: number): Effect.Effect<ReadonlyArray<RecentRun>, SqlError> =>
      sql`
        SELECT id::text AS run, command, status, coalesce(outcome, status) AS outcome,
               to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS started,
               round(extract(epoch FROM coalesce(finished_at, now()) - started_at)::numeric, 1)::text AS seconds,
               rows::text, requests::text, coalesce(error, '') AS error
        FROM sync.runs WHERE store_id = ${storeId} ORDER BY started_at DESC, id DESC LIMIT ${limit}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(RecentRun))), Effect.orDie)
  }
})

/** One store's sync.runs: a row per sync or backfill, from start to outcome. */
export class Runs extends Effect.Service<Runs>()("shopsync/Runs", { effect: makeRuns }) {}
