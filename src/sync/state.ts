import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, FiberRef, Option, Schema } from "effect"
import { CurrentStore } from "../warehouse/current-store.js"
import { currentGuard, fencedStatement, retryInRun } from "../warehouse/lease.js"
import type { Cursor } from "./cursor.js"
import { streamsStatus, type StreamStatus } from "./stream-status.js"

/** A stream's row of sync.state: where it stands, and what it keeps besides (slices, last full pass). */
export interface StreamState {
  readonly cursor: Cursor | null
  readonly details: Readonly<Record<string, unknown>>
}

/**
 * A pass under way: its start, the last parent stored, the upper bound of the run that stored it (`at`), the live
 * parents that run counted (`parents`), and, for a pass over the recent parents only, since when (`recentFrom`).
 */
export const PassProgress = Schema.Struct({
  startedAt: Schema.Number, after: Schema.String, at: Schema.optional(Schema.Number), parents: Schema.optional(Schema.Number),
  recentFrom: Schema.optional(Schema.Number)
})
export type PassProgress = typeof PassProgress.Type
export interface PassToRun {
  readonly startedAt: number
  /** Resume after this parent key; undefined: from the first. */
  readonly after: string | undefined
  /** No pass of the stream has ended yet: no parent's children were read before it. */
  readonly first: boolean
  /** When the pass last read a share (the run's upper bound); undefined before its first share. */
  readonly lastShareAt: number | undefined
  /** The live parents counted by the run that read the last share, if known. */
  readonly parents: number | undefined
  /** The pass reads the parents the store modified since this epoch second; undefined: every parent. */
  readonly recentFrom: number | undefined
  /** When the last pass that read every parent began (undefined: none ended yet). */
  readonly everyParentAt: number | undefined
}

export const Unavailable = Schema.Struct({ reason: Schema.String, checkedAt: Schema.Number })
export type Unavailable = typeof Unavailable.Type

/** How a stream's run ended: `served` (the store's clock) when it ran to the end, `unavailable` when not served. */
export interface StreamOutcome {
  readonly stream: string
  readonly rows: number
  readonly error: string | null
  readonly served?: number
  readonly unavailable?: Unavailable
}

export interface Standing {
  /** When the stream last ran to the end, by the store's clock (epoch second), if ever. */
  readonly refreshedAt: number | undefined
  readonly unavailable: Option.Option<Unavailable>
}

const StateRow = Schema.Struct({
  cursor_at: Schema.NullOr(Schema.NumberFromString),
  cursor_id: Schema.NullOr(Schema.NumberFromString),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
const decodeState = Schema.decodeUnknown(Schema.Array(StateRow))
const decodeStates = Schema.decodeUnknown(Schema.Array(Schema.extend(StateRow, Schema.Struct({ stream: Schema.String }))))
const WarehouseClock = Schema.Struct({ now: Schema.String, run_start: Schema.NullOr(Schema.String) })
const decodeClock = Schema.decodeUnknown(Schema.Array(WarehouseClock))

/** A children stream's marks (changedMarks). */
export interface ChangedMarks {
  readonly left: string | undefined
  /** Where its last look for orphans began: the parents deleted since are those it has not looked at (none: never looked). */
  readonly retired: string | undefined
  readonly now: string
  readonly runStart: string | null
}

const textDetail = (state: StreamState, key: string) => (typeof state.details[key] === "string" ? state.details[key] : undefined)

const toState = (rows: ReadonlyArray<typeof StateRow.Type>): StreamState => {
  const row = rows[0]
  return {
    cursor: row && row.cursor_at !== null ? { at: row.cursor_at, id: row.cursor_id } : null,
    details: row?.details ?? {}
  }
}

/** A full pass is due when there has been none yet, or `hours` ago (0: every run). */
const passDue = (state: StreamState, hours: number, upper: number) =>
  hours <= 0 || upper - Number(state.details["lastFullPass"] ?? 0) >= hours * 3600

/**
 * What a new pass reads: the parents modified in the last `quietDays` days (from this epoch second), or every parent
 * (undefined) when the last pass over every parent began that many days ago or more, none has ended, or `quietDays` is 0.
 */
const recentFromFor = (everyParentAt: number | undefined, quietDays: number, upper: number) =>
  quietDays > 0 && everyParentAt !== undefined && upper - everyParentAt < quietDays * 86_400 ? upper - quietDays * 86_400 : undefined

const STATE = "extract(epoch FROM cursor_at)::bigint AS cursor_at, cursor_id, details"

const decodeDetails = Schema.decodeUnknown(Schema.Array(Schema.Struct({ stream: Schema.String, details: StateRow.fields.details })))

const standingOf = (details: Readonly<Record<string, unknown>>): Standing => ({
  refreshedAt: Option.getOrUndefined(Schema.decodeUnknownOption(Schema.Number)(details["refreshedAt"])),
  unavailable: Schema.decodeUnknownOption(Unavailable)(details["unavailable"])
})

/** The service as its layer makes it; a job makes a store's repositories with it in one go (jobs/layers.ts). */
export const makeSyncState = Effect.gen(function*() {
  const { storeId } = yield* CurrentStore
  const sql = yield* SqlClient.SqlClient
  // Every write is one statement that proves the run's lease (see lease.ts).
  const write = fencedStatement(sql)
  const readRow = (stream: string): Effect.Effect<StreamState, SqlError> =>
    sql`SELECT ${sql.literal(STATE)} FROM sync.state WHERE store_id = ${storeId} AND stream = ${stream}`.pipe(
      Effect.flatMap(decodeState), Effect.orDie, Effect.map(toState))
  // A run's reads of its streams' states are served from one statement that reads them all, taken at its first read
  // (a stream's state is read at its start, and by a few checks: 19 statements per incremental sync before), until
  // the run writes the stream; outside a run every read goes to the table. A run reads only the streams whose lock
  // it holds: no other run writes them meanwhile.
  let found: { readonly run: number; readonly states: ReadonlyMap<string, StreamState>; readonly written: Set<string> } | undefined
  // One snapshot at a time: streams starting together share it (one taken late would miss what another just wrote).
  const taking = yield* Effect.makeSemaphore(1)
  const snapshot = (run: number) =>
    taking.withPermits(1)(Effect.suspend(() =>
      found?.run === run ? Effect.succeed(found) : sql`SELECT stream, ${sql.literal(STATE)} FROM sync.state WHERE store_id = ${storeId}`.pipe(
        Effect.flatMap(decodeStates), Effect.orDie,
        Effect.map((rows) => (found = { run, states: new Map(rows.map((r) => [r.stream, toState([r])])), written: new Set() })))))
  const read = (stream: string): Effect.Effect<StreamState, SqlError> =>
    Effect.flatMap(FiberRef.get(currentGuard), (guard) =>
      Option.isNone(guard) ? readRow(stream) : Effect.flatMap(snapshot(guard.value.token), (taken) =>
        taken.written.has(stream) ? readRow(stream) : Effect.succeed(taken.states.get(stream) ?? toState([]))))
  // The warehouse's clock for the children streams' marks, read once a run (every time outside one): a mark taken
  // before a stream's start is only more careful (its next run reads again the parents written in between). "Now" is
  // held back to the start of any transaction of this role still open: what it writes is stamped with its start
  // (synced_at = now()) but seen only once it commits, maybe after the mark is left.
  const readClock = (run: number) =>
    sql`SELECT least(clock_timestamp(), (SELECT min(xact_start) FROM pg_stat_activity
               WHERE datname = current_database() AND usename = current_user AND pid <> pg_backend_pid()))::text AS now,
               (SELECT started_at::text FROM sync.runs WHERE id = ${run}) AS run_start`.pipe(
      Effect.flatMap(decodeClock), Effect.orDie, Effect.map(([clock]) => clock!))
  let marked: { readonly run: number; readonly clock: typeof WarehouseClock.Type } | undefined
  const marking = yield* Effect.makeSemaphore(1)
  const clockOf = (run: number) =>
    Effect.flatMap(FiberRef.get(currentGuard), (guard) =>
      Option.isNone(guard) ? readClock(run) : marking.withPermits(1)(Effect.suspend(() =>
        marked?.run === run ? Effect.succeed(marked.clock) : Effect.map(readClock(run), (clock) => (marked = { run, clock }).clock))))
  /** `read` of several streams; those the run has not written, from its snapshot without an effect each. */
  const readMany = (streams: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<StreamState>, SqlError> =>
    Effect.flatMap(FiberRef.get(currentGuard), (guard) =>
      Option.isNone(guard) ? Effect.forEach(streams, readRow) : Effect.flatMap(snapshot(guard.value.token), (taken) =>
        streams.some((stream) => taken.written.has(stream))
          ? Effect.forEach(streams, read)
          : Effect.succeed(streams.map((stream) => taken.states.get(stream) ?? toState([])))))
  /** A write of the rows of `streams`: the run's later reads of them go to the table. */
  const writeOf = (...streams: ReadonlyArray<string>) => <A, E, R>(statement: (proved: Fragment) => Effect.Effect<A, E, R>) =>
    Effect.zipRight(Effect.sync(() => streams.forEach((stream) => found?.written.add(stream))), write(statement))
  /** The run wrote streams by a pattern: every later read goes to the table, through a new snapshot. */
  const wroteMany = Effect.sync(() => (found = undefined))
  const lock = (stream: string): Effect.Effect<StreamState, SqlError> =>
    sql`SELECT ${sql.literal(STATE)} FROM sync.state WHERE store_id = ${storeId} AND stream = ${stream} FOR UPDATE`.pipe(
      Effect.flatMap(decodeState), Effect.orDie, Effect.map(toState))
  const checkpoint = (stream: string, cursor: Cursor | null, rows: number, details?: unknown): Effect.Effect<void, SqlError> => {
    const json = details === undefined ? null : JSON.stringify(details)
    return writeOf(stream)((proved) => sql`
      INSERT INTO sync.state AS s (store_id, stream, cursor_at, cursor_id, rows_total, details, updated_at)
      SELECT ${storeId}, ${stream}, to_timestamp(${cursor?.at ?? null}::bigint), ${cursor?.id ?? null}::bigint, ${rows}::bigint,
             coalesce(${json}::jsonb, '{}'), now()
      WHERE ${proved}
      ON CONFLICT (store_id, stream) DO UPDATE SET
        cursor_at = EXCLUDED.cursor_at, cursor_id = EXCLUDED.cursor_id, rows_total = s.rows_total + EXCLUDED.rows_total,
        details = coalesce(${json}::jsonb, s.details), updated_at = now()`.pipe(Effect.asVoid))
  }
  /** Sets some keys of a stream's details, leaving its cursor and the other keys as they are. */
  const mergeDetails = (stream: string, keys: Record<string, unknown>) =>
    writeOf(stream)((proved) => sql`INSERT INTO sync.state AS s (store_id, stream, details) SELECT ${storeId}, ${stream}, ${JSON.stringify(keys)}::jsonb
        WHERE ${proved} ON CONFLICT (store_id, stream) DO UPDATE SET details = s.details || EXCLUDED.details, updated_at = now()`.pipe(Effect.asVoid))
  return {
    read,
    /** The state, locked until the transaction ends: concurrent slices checkpoint one at a time, each on the others' progress. */
    lock,
    /** Moves the cursor, adds the rows loaded; `details` replaces the stored ones when given. */
    checkpoint,
    /**
     * Moves the cursor of a stream walked as one open slice (no bounded slice pending in its details), adds the rows
     * loaded: one statement, where a page of concurrent slices locks the row and rewrites them (`lock`, then
     * `checkpoint`). False, writing nothing, when slices are pending: the row as it is once locked decides.
     */
    advanceHead: (stream: string, cursor: Cursor | null, rows: number): Effect.Effect<boolean, SqlError> =>
      writeOf(stream)((proved) => sql`
        INSERT INTO sync.state AS s (store_id, stream, cursor_at, cursor_id, rows_total, updated_at)
        SELECT ${storeId}, ${stream}, to_timestamp(${cursor?.at ?? null}::bigint), ${cursor?.id ?? null}::bigint, ${rows}::bigint, now()
        WHERE ${proved}
        ON CONFLICT (store_id, stream) DO UPDATE SET
          cursor_at = EXCLUDED.cursor_at, cursor_id = EXCLUDED.cursor_id, rows_total = s.rows_total + EXCLUDED.rows_total, updated_at = now()
        WHERE NOT (s.details ? 'slices') RETURNING 1 AS moved`.pipe(Effect.map((moved) => moved.length > 0))),
    /** `streams` are started by run `runId` (a phase's, at once: one write). */
    started: (streams: ReadonlyArray<string>, runId: number): Effect.Effect<void, SqlError> =>
      streams.length === 0 ? Effect.void : write((proved) => sql`
        INSERT INTO sync.state AS s (store_id, stream, last_run_id, last_started_at)
        SELECT ${storeId}, stream, ${runId}, now() FROM unnest(${streams}::text[]) AS stream WHERE ${proved}
        ON CONFLICT (store_id, stream) DO UPDATE SET last_run_id = EXCLUDED.last_run_id, last_started_at = EXCLUDED.last_started_at`.pipe(Effect.asVoid)),
    /**
     * The outcomes of streams' runs (after `started`), in one write: each one's rows, its error (null on success),
     * and what it showed of the store: served (ran to the end as of `served`, the store's clock: refreshed then, no
     * longer unavailable) or not serving the stream to this key (`unavailable`: why, and when that was seen).
     */
    finished: (outcomes: ReadonlyArray<StreamOutcome>): Effect.Effect<void, SqlError> => {
      if (outcomes.length === 0) return Effect.void
      const patch = (o: StreamOutcome) =>
        JSON.stringify(o.unavailable ? { unavailable: o.unavailable } : o.served !== undefined ? { refreshedAt: o.served } : {})
      return writeOf(...outcomes.map((o) => o.stream))((proved) => sql`
        UPDATE sync.state s SET last_rows = f.rows, last_error = f.error,
               last_success_at = CASE WHEN f.error IS NULL THEN now() ELSE s.last_success_at END,
               details = (CASE WHEN f.served THEN s.details - 'unavailable' ELSE s.details END) || f.patch,
               updated_at = now()
        FROM unnest(${outcomes.map((o) => o.stream)}::text[], ${outcomes.map((o) => o.rows)}::bigint[],
                    ${outcomes.map((o) => o.error)}::text[], ${outcomes.map((o) => o.served !== undefined)}::boolean[],
                    ${outcomes.map(patch)}::jsonb[]) AS f(stream, rows, error, served, patch)
        WHERE s.store_id = ${storeId} AND s.stream = f.stream AND ${proved}`.pipe(Effect.asVoid))
    },
    /** Whether a full pass of `stream` is due at `upper`: never done, or `hours` ago (0: every run). */
    fullPassDue: (stream: string, hours: number, upper: number): Effect.Effect<boolean, SqlError> => Effect.map(read(stream), (state) => passDue(state, hours, upper)),
    /** A pass started at `upper` ended; `everyParentAt`: when the last pass that read every parent began (kept for passToRun). */
    fullPassDone: (stream: string, upper: number, everyParentAt?: number): Effect.Effect<void, SqlError> =>
      checkpoint(stream, null, 0, { lastFullPass: upper, ...(everyParentAt === undefined ? {} : { lastEveryParentPass: everyParentAt }) }),
    /** Every stream's state for `status`; `tables` names the table whose live rows count for each stream. */
    status: (tables: Readonly<Record<string, string>>): Effect.Effect<ReadonlyArray<StreamStatus>, SqlError> => streamsStatus(sql, storeId, tables),
    /**
     * Whether and when a run of each of `streams` is due: its last complete run, and why the store may not serve it;
     * one statement for them all (a no-change sync skips most streams on this alone). Read by the scheduler before
     * the streams run, outside any unit of work that would retry it: in a run, from the snapshot its streams then
     * read their states from (one statement for both); elsewhere (the status page), from the table.
     */
    standings: (streams: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, Standing>, SqlError> =>
      Effect.flatMap(FiberRef.get(currentGuard), (guard) =>
        retryInRun(Option.isSome(guard)
          ? Effect.map(readMany(streams), (states) => states.map((state, i) => ({ stream: streams[i]!, details: state.details })))
          : sql`SELECT stream, details FROM sync.state WHERE store_id = ${storeId} AND stream = ANY(${streams}::text[])`.pipe(
            Effect.flatMap(decodeDetails), Effect.orDie))).pipe(
        Effect.map((rows) => new Map(streams.map((stream) => [stream, standingOf(rows.find((r) => r.stream === stream)?.details ?? {})])))),
    /**
     * The resumable full pass of a child stream to run now, if any: the one under way (its start, by the store's
     * clock, and the last parent it stored), or a new one starting at `upper` when `fullPassDue` says so, over the
     * parents modified in the last `quietDays` days or every parent (recentFromFor; 0: always every parent).
     */
    passToRun: (stream: string, hours: number, upper: number, quietDays = 0): Effect.Effect<Option.Option<PassToRun>, SqlError> =>
      Effect.map(read(stream), (state) => {
        const first = state.details["lastFullPass"] === undefined
        const everyParentAt = Option.getOrUndefined(Schema.decodeUnknownOption(Schema.Number)(state.details["lastEveryParentPass"]))
        return Option.orElse(
          Option.map(Schema.decodeUnknownOption(PassProgress)(state.details["pass"]), (p): PassToRun => ({
            startedAt: p.startedAt, after: p.after, first, lastShareAt: p.at, parents: p.parents, recentFrom: p.recentFrom, everyParentAt
          })),
          () => (passDue(state, hours, upper)
            ? Option.some<PassToRun>({
              startedAt: upper, after: undefined, first, lastShareAt: undefined, parents: undefined,
              recentFrom: recentFromFor(everyParentAt, quietDays, upper), everyParentAt
            })
            : Option.none())
        )
      }),
    savePassProgress: (stream: string, progress: PassProgress): Effect.Effect<void, SqlError> => mergeDetails(stream, { pass: progress }),
    /**
     * A children stream's marks on the warehouse's clock (timestamptz texts): the one its last successful run left
     * (details.changedFrom: parents written since are its changed ones), now (for the mark this run leaves), and
     * when run `runId` began.
     */
    changedMarks: (stream: string, runId: number): Effect.Effect<ChangedMarks, SqlError> =>
      Effect.zipWith(read(stream), clockOf(runId), (state, clock) =>
        ({ left: textDetail(state, "changedFrom"), retired: textDetail(state, "retiredFrom"), now: clock.now, runStart: clock.run_start })),
    /**
     * A children stream's marks: the parents written before `changedFrom` have had their children read, those deleted
     * before `retiredFrom` their orphans marked.
     */
    leaveMarks: (stream: string, marks: { readonly changedFrom?: string; readonly retiredFrom?: string }): Effect.Effect<void, SqlError> =>
      mergeDetails(stream, marks),
    /** Days whose figures changed since the store's report for them was last stored, in order (noted by the tables' triggers). */
    reportDaysPending: sql`SELECT day::text AS day FROM sync.report_days WHERE store_id = ${storeId} ORDER BY day`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ day: Schema.String })))),
      Effect.orDie,
      Effect.map((rows) => rows.map((r) => r.day))
    ),
    /** Forgets every stream's state (the demo starts from nothing). */
    reset: Effect.zipRight(wroteMany, write((proved) => sql`DELETE FROM sync.state WHERE store_id = ${storeId} AND ${proved}`.pipe(Effect.asVoid))),
    /** Forgets one stream's state and its listings' (`orders.trash`): its next run reads it as a first sync would. */
    forget: (stream: string): Effect.Effect<void, SqlError> =>
      Effect.zipRight(wroteMany, write((proved) =>
        sql`DELETE FROM sync.state WHERE store_id = ${storeId} AND (stream = ${stream} OR starts_with(stream, ${stream} || '.')) AND ${proved}`.pipe(Effect.asVoid)))
  }
})

/**
 * One store's sync.state: each stream's cursor and details, moved only together with the rows they
 * cover (the caller's transaction), and what its last run did.
 */
export class SyncState extends Effect.Service<SyncState>()("shopsync/SyncState", { effect: makeSyncState }) {}
