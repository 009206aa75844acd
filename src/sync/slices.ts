import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { type Context, Effect } from "effect"
import { StoreClient } from "../store-client/client.js"
import type { StoreError } from "../store-client/errors.js"
import { type Cursor, loadPage, query, readState, saveCursor } from "../warehouse/writer.js"
import { type Doc, rangeParams, stampOf, walkRange, type WalkSpec } from "./walk.js"

/**
 * A stream walked in concurrent time slices, and how its progress is checkpointed.
 *
 * Progress is a set of pending slices: each holds the rows ordered after its cursor (second, id) and
 * dated before its bound; one slice, "open", has no bound (it is the stream's head, the classic cursor).
 * Every row outside the pending slices is loaded. In sync.state:
 *   - cursor_at / cursor_id: the lowest pending cursor, so every row at or before it is loaded (what
 *     `status` shows, and all an older shopsync reads);
 *   - details.slices: {"<bound, epoch second>": {"at", "id"}, …, "open": {"at", "id"}}, only while
 *     bounded slices are pending; with the open slice alone the cursor columns say everything.
 *
 * Transitions, each one transaction, each leaving the pending set a superset of the rows not loaded:
 *   - a page: its rows and its slice's new cursor (commit);
 *   - a split: a slice (after c, before e) becomes (after c, before b1), (second b1 on, before b2), …,
 *     (second bk on, before e), the last keeping the slice's key: the same rows, written before any
 *     piece loads a page;
 *   - a bounded slice's end: its entry is removed.
 * Each transaction locks the state row (FOR UPDATE) and re-reads it after its rows are loaded, so
 * concurrent slices checkpoint one at a time, each on top of the others' committed progress: the
 * state never claims a row that is not committed, and a crash anywhere resumes every slice from its
 * own cursor, skipping nothing and re-reading at most the pages in flight.
 */

/** Slices of fewer pages than this are not split further: the boundary probes would not pay. */
const MIN_PAGES_PER_SLICE = 4
const OPEN = "open"

interface Slice {
  /** The bound as a string, or "open". */
  readonly key: string
  readonly lower: Cursor | null
  /** Exclusive bound (epoch second); null for the open slice, which runs to the run's upper bound. */
  readonly upper: number | null
}

type Store = Context.Tag.Service<StoreClient>
type Entries = Record<string, Cursor | null>

/** Where a walk's progress goes: the stream's state, or nowhere (a backfill moves no cursor). */
interface Ledger {
  readonly pending: Effect.Effect<ReadonlyArray<Slice>, SqlError, SqlClient.SqlClient>
  readonly commit: (slice: Slice, docs: ReadonlyArray<Doc>, cursor: Cursor | null, json?: string) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
  readonly split: (slice: Slice, pieces: ReadonlyArray<Slice>) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
  readonly finish: (slice: Slice) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
}

interface StreamWalk {
  readonly storeId: string
  /** State key the progress is checkpointed under; null walks without moving any cursor (backfill). */
  readonly stream: string | null
  /** Where a walk without state starts; a stream's walk starts from its state. */
  readonly lower?: Cursor | null
  /** Exclusive upper bound (epoch second), frozen at the start of the run against the store's clock. */
  readonly upper: number
  readonly onPage: (docs: ReadonlyArray<Doc>, page: { readonly total: number }) => Effect.Effect<void>
}

/** Null sorts first (nothing loaded), and a whole second after every id in it. */
const compareCursors = (a: Cursor | null, b: Cursor | null) =>
  a === null || b === null
    ? (a === null ? 0 : 1) - (b === null ? 0 : 1)
    : a.at - b.at || (a.id ?? Number.POSITIVE_INFINITY) - (b.id ?? Number.POSITIVE_INFINITY)

const decodeCursor = (value: unknown): Cursor | null => {
  const v = value as { at?: unknown; id?: unknown } | null
  return v === null || v.at === null || v.at === undefined ? null : { at: Number(v.at), id: v.id === null || v.id === undefined ? null : Number(v.id) }
}

/** A state row's pending slices: details.slices, or the plain cursor as the open slice. */
const entriesOf = (slices: unknown, cursor: Cursor | null): Entries =>
  slices
    ? Object.fromEntries(Object.entries(slices as Record<string, unknown>).map(([k, v]) => [k, decodeCursor(v)]))
    : { [OPEN]: cursor }

const slicesOf = (entries: Entries): ReadonlyArray<Slice> =>
  Object.entries(entries)
    .map(([key, lower]) => ({ key, lower, upper: key === OPEN ? null : Number(key) }))
    .sort((a, b) => (a.upper ?? Number.POSITIVE_INFINITY) - (b.upper ?? Number.POSITIVE_INFINITY))

/** Locks the stream's state row, applies `change` to its slices and writes them back with the lowest cursor. */
const updateSlices = (storeId: string, stream: string, rows: number, change: (entries: Entries) => void) =>
  Effect.gen(function*() {
    const [row] = yield* query<{ cursor_at: string | null; cursor_id: string | null; details: Record<string, unknown> }>(
      "state_lock",
      [storeId, stream]
    )
    const { slices, ...details } = row?.details ?? {}
    const entries = entriesOf(slices, decodeCursor({ at: row?.cursor_at ?? null, id: row?.cursor_id ?? null }))
    change(entries)
    const keys = Object.keys(entries)
    const lowest = Object.values(entries).sort(compareCursors)[0] ?? null
    const onlyOpen = keys.length === 1 && keys[0] === OPEN
    yield* saveCursor(storeId, stream, lowest, rows, onlyOpen ? details : { ...details, slices: entries })
  })

const persisted = (spec: WalkSpec, run: StreamWalk & { readonly stream: string }): Ledger => ({
  pending: Effect.map(readState(run.storeId, run.stream), (state) => slicesOf(entriesOf(state.details.slices, state.cursor))),
  commit: (slice, docs, cursor, json) =>
    loadPage(spec.kind, run.storeId, docs, {
      checkpoint: updateSlices(run.storeId, run.stream, docs.length, (e) => { e[slice.key] = cursor }),
      json
    }),
  split: (slice, pieces) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(updateSlices(run.storeId, run.stream, 0, (e) => {
        delete e[slice.key]
        for (const piece of pieces) e[piece.key] = piece.lower
      }))),
  finish: (slice) =>
    slice.key === OPEN
      ? Effect.void
      : Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(updateSlices(run.storeId, run.stream, 0, (e) => { delete e[slice.key] })))
})

const transient = (spec: WalkSpec, run: StreamWalk): Ledger => ({
  pending: Effect.succeed([{ key: OPEN, lower: run.lower ?? null, upper: null }]),
  commit: (_slice, docs, _cursor, json) => loadPage(spec.kind, run.storeId, docs, { json }),
  split: () => Effect.void,
  finish: () => Effect.void
})

/**
 * Boundaries that cut the rows after `from` into about equal parts: the row at each k-th of the
 * remaining count, one `per_page=1` request each (sent together). Whole seconds, so a burst of rows
 * sharing a second stays in one piece.
 */
const plan = (store: Store, spec: WalkSpec, slice: Slice, from: Cursor, upper: number, remaining: number) =>
  Effect.gen(function*() {
    const parts = Math.min(store.concurrency, Math.floor(remaining / (store.perPage * MIN_PAGES_PER_SLICE)))
    if (parts < 2) return []
    const offsets = Array.from({ length: parts - 1 }, (_, i) => Math.floor(((i + 1) * remaining) / parts))
    const probes = yield* Effect.forEach(
      offsets,
      (offset) => store.list(spec.path, rangeParams(spec, store, from, upper, { size: 1, number: offset + 1 })),
      { concurrency: "unbounded" }
    )
    // The first piece keeps `from`; a boundary at or before its first second would leave it empty.
    const firstSecond = from.id === null ? from.at + 1 : from.at
    const stamp = stampOf(spec.field)
    const seconds = [...new Set(probes.flatMap((p) => (p.items[0] === undefined ? [] : [stamp(p.items[0] as Doc)])))]
      .filter((s) => Number.isFinite(s) && s > firstSecond && s < upper)
      .sort((a, b) => a - b)
    return [...seconds, slice.upper].map((bound, i): Slice => ({
      key: i === seconds.length ? slice.key : String(bound),
      lower: i === 0 ? from : { at: seconds[i - 1]! - 1, id: null },
      upper: bound
    }))
  })

const walkSlice = (
  store: Store,
  spec: WalkSpec,
  ledger: Ledger,
  slice: Slice,
  run: StreamWalk
): Effect.Effect<number, StoreError | SqlError, StoreClient | SqlClient.SqlClient> =>
  Effect.gen(function*() {
    // A bounded slice runs to its own bound even when this run's upper is lower (the store's clock behind, a
    // longer settle): its rows were settled for the run that cut it, and ending it short would skip the rest.
    const upper = slice.upper ?? run.upper
    const commitTo = (s: Slice) => (docs: ReadonlyArray<Doc>, cursor: Cursor | null, total: number, json?: string) =>
      ledger.commit(s, docs, cursor, json).pipe(Effect.zipRight(run.onPage(docs, { total })))
    const walkPiece = (s: Slice, lower: Cursor | null) =>
      walkRange(spec, { lower, upper: s.upper ?? upper }, commitTo(s)).pipe(
        Effect.tap(() => ledger.finish(s)),
        Effect.map((w) => w.rows)
      )

    // The first page's X-WP-Total tells whether the rest is worth splitting.
    const first = yield* walkRange(spec, { lower: slice.lower, upper }, commitTo(slice), { firstPageOnly: true })
    if (first.done) {
      yield* ledger.finish(slice)
      return first.rows
    }
    const pieces = yield* plan(store, spec, slice, first.cursor!, upper, first.total - first.rows)
    if (pieces.length < 2) return first.rows + (yield* walkPiece(slice, first.cursor))
    yield* ledger.split(slice, pieces)
    const counts = yield* Effect.forEach(pieces, (piece) => walkPiece(piece, piece.lower), { concurrency: "unbounded" })
    return counts.reduce((n, c) => n + c, first.rows)
  })

/**
 * Loads every row of `spec` the stream has not loaded yet (or, without a stream, the rows after
 * `lower`), up to `upper`: each pending slice is walked, and a slice with enough rows is split into
 * up to STORE_CONCURRENCY pieces walked at once (the store client caps the requests in flight).
 */
export const walkStream = (spec: WalkSpec, run: StreamWalk) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const ledger = run.stream === null ? transient(spec, run) : persisted(spec, { ...run, stream: run.stream })
    const pending = yield* ledger.pending
    const counts = yield* Effect.forEach(pending, (slice) => walkSlice(store, spec, ledger, slice, run), { concurrency: "unbounded" })
    return counts.reduce((n, c) => n + c, 0)
  })
