import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Context, Effect, Exit, Layer, Option, Ref, Schema, type Scope } from "effect"
import { retryConnection } from "../warehouse/reconnect.js"
import { errorText, SyncFailed } from "./errors.js"

/** A run in progress: its id, and the rows its streams wrote so far. */
export interface Run {
  readonly id: number
  readonly addRows: (rows: number) => Effect.Effect<void>
}

export const RecentRun = Schema.Struct({
  run: Schema.String,
  command: Schema.String,
  status: Schema.String,
  started: Schema.String,
  seconds: Schema.String,
  rows: Schema.String,
  requests: Schema.String,
  error: Schema.String
})
export type RecentRun = typeof RecentRun.Type

const INTERRUPTED = "interrupted: the process was stopped before the run finished; the next run resumes from the last checkpoints"

/** One store's sync.runs: a row per sync or backfill, from start to outcome. */
export class Runs extends Context.Tag("shopsync/Runs")<Runs, {
  /**
   * Records a run for the scope's lifetime: its end (succeeded, failed with the error, or interrupted by a
   * signal) is written from the scope's exit, whatever ends it. When the caller is alone, runs left 'running'
   * by a process that died are marked failed first.
   */
  readonly begin: (
    command: string,
    streams: ReadonlyArray<string>,
    requests: Effect.Effect<number>,
    /** No other run of the store is alive (the caller holds both its locks): runs left 'running' died. */
    alone: boolean
  ) => Effect.Effect<Run, SqlError, Scope.Scope>
  readonly recent: Effect.Effect<ReadonlyArray<RecentRun>, SqlError>
}>() {}

/** What sync.runs says of a run that ended with `exit`. */
const outcome = (exit: Exit.Exit<unknown, unknown>): { status: "succeeded" | "failed"; error: string | null } => {
  if (Exit.isSuccess(exit)) return { status: "succeeded", error: null }
  if (Cause.isInterruptedOnly(exit.cause)) return { status: "failed", error: INTERRUPTED }
  const failure = Option.getOrElse(Cause.failureOption(exit.cause), () => Cause.squash(exit.cause))
  return { status: "failed", error: failure instanceof SyncFailed ? failure.list : errorText(failure) }
}

export const makeRuns = (storeId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const start = (command: string, streams: ReadonlyArray<string>, alone: boolean) =>
      Effect.gen(function*() {
        if (alone) yield* sql`UPDATE sync.runs SET status = 'failed', finished_at = coalesce(finished_at, now()),
                     error = 'interrupted: the process ended before the run finished; the next run resumed from the last checkpoint'
                   WHERE store_id = ${storeId} AND status = 'running'`
        const [row] = yield* sql<{ id: string }>`INSERT INTO sync.runs (store_id, command, streams)
                                                 VALUES (${storeId}, ${command}, ${streams}::text[]) RETURNING id`
        return { id: Number(row!.id), rows: yield* Ref.make(0) }
      })
    const finish = (run: { id: number; rows: Ref.Ref<number> }, exit: Exit.Exit<unknown, unknown>, requests: Effect.Effect<number>) =>
      Effect.gen(function*() {
        const { status, error } = outcome(exit)
        yield* sql`UPDATE sync.runs SET finished_at = now(), status = ${status}, rows = ${yield* Ref.get(run.rows)},
                     requests = ${yield* requests}, error = ${error}
                   WHERE id = ${run.id} AND status = 'running'`
        // A connection the pool kept from before a warehouse restart fails once: the outcome is written on another.
      }).pipe(retryConnection(5), Effect.catchAll((e) => Effect.logWarning(`run ${run.id}: its outcome was not recorded: ${errorText(e)}`)))
    return Runs.of({
      begin: (command, streams, requests, alone) =>
        Effect.acquireRelease(start(command, streams, alone), (run, exit) => finish(run, exit, requests)).pipe(
          Effect.map((run): Run => ({ id: run.id, addRows: (n) => Ref.update(run.rows, (r) => r + n) }))
        ),
      recent: sql`
        SELECT id::text AS run, command, status,
               to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS started,
               round(extract(epoch FROM coalesce(finished_at, now()) - started_at)::numeric, 1)::text AS seconds,
               rows::text, requests::text, left(coalesce(error, ''), 120) AS error
        FROM sync.runs WHERE store_id = ${storeId} ORDER BY started_at DESC LIMIT 5`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(RecentRun))), Effect.orDie)
    })
  })

export const RunsLive = (storeId: string) => Layer.effect(Runs, makeRuns(storeId))
