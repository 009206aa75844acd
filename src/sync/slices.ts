import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { type Context, Effect, Option, Schema, Stream } from "effect"
import { StoreClient } from "../store-client/client.js"
import type { StoreError } from "../store-client/errors.js"
import { fenced } from "../warehouse/lease.js"
import { Loader } from "../warehouse/loader.js"
import { compareCursors, type Cursor, through, wholeSecond } from "./cursor.js"
import { pageSpan, sliceSpan, walkSpan } from "./spans.js"
import { SyncState } from "./state.js"
import { type Doc, firstPage, type Listing, positionOf, type Range, rangeParams, walkPages, type WalkPage, type WalkSpec } from "./walk.js"

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
type Needs = SqlClient.SqlClient | SyncState | Loader

/** Where a walk's progress goes: the stream's state, or nowhere (a backfill moves no cursor). */
interface Ledger {
  readonly pending: Effect.Effect<ReadonlyArray<Slice>, SqlError, Needs>
  /** Loads a page and moves its slice's cursor past it, in one transaction. */
  readonly commit: (slice: Slice, page: WalkPage) => Effect.Effect<void, SqlError, Needs>
  readonly split: (slice: Slice, pieces: ReadonlyArray<Slice>) => Effect.Effect<void, SqlError, Needs>
  readonly finish: (slice: Slice) => Effect.Effect<void, SqlError, Needs>
}

export interface StreamWalk<A extends Doc = Doc> {
  /** State key the progress is checkpointed under; null walks without moving any cursor (backfill). */
  readonly stream: string | null
  /** Where a walk without state starts; a stream's walk starts from its state. */
  readonly lower?: Cursor | null
  /** Exclusive upper bound (epoch second), frozen at the start of the run against the store's clock. */
  readonly upper: number
  /** Told of every page once it is loaded. */
  readonly onPage: (page: WalkPage<A>) => Effect.Effect<void>
}

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
const updateSlices = (stream: string, rows: number, change: (entries: Entries) => void) =>
  Effect.gen(function*() {
    const state = yield* SyncState
    const { cursor, details } = yield* state.lock(stream)
    const { slices, ...rest } = details
    const entries = entriesOf(slices, cursor)
    change(entries)
    const keys = Object.keys(entries)
    const lowest = Object.values(entries).sort(compareCursors)[0] ?? null
    const onlyOpen = keys.length === 1 && keys[0] === OPEN
    yield* state.checkpoint(stream, lowest, rows, onlyOpen ? rest : { ...rest, slices: entries })
  })

/** One transaction that proves the run's lease first, retried whole while the warehouse connection is lost. */
const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flatMap(SqlClient.SqlClient, (sql) => fenced(sql)(effect))
/** A page's rows, with the ones that did not fit (quarantined) and the ids of those cleaned of NULs. */
const loadPage = (spec: Listing, page: WalkPage, replace: boolean) =>
  Effect.flatMap(Loader, (loader) => loader.load({ kind: spec.kind, docs: page.docs, json: page.json, places: page.places, rejected: page.rejected, cleaned: page.cleaned, replace }))

/** The slice's cursor moved past its page: in one statement while the open slice is the only one pending. */
const advance = (stream: string, slice: Slice, page: WalkPage) => {
  const moved = updateSlices(stream, page.docs.length, (e) => { e[slice.key] = page.cursor })
  if (slice.key !== OPEN) return moved
  return Effect.flatMap(SyncState, (state) => state.advanceHead(stream, page.cursor, page.docs.length)).pipe(
    Effect.flatMap((done) => (done ? Effect.void : moved)))
}

const persisted = (spec: Listing, stream: string): Ledger => ({
  pending: Effect.flatMap(SyncState, (state) => Effect.map(state.read(stream), (s) => slicesOf(entriesOf(s.details.slices, s.cursor)))),
  commit: (slice, page) => inTransaction(Effect.zipRight(loadPage(spec, page, false), advance(stream, slice, page))),
  split: (slice, pieces) =>
    inTransaction(updateSlices(stream, 0, (e) => {
      delete e[slice.key]
      for (const piece of pieces) e[piece.key] = piece.lower
    })),
  finish: (slice) => (slice.key === OPEN ? Effect.void : inTransaction(updateSlices(stream, 0, (e) => { delete e[slice.key] })))
})

/** A backfill's: no cursor moves, and its pages replace what differs from the store's whatever its date. */
const transient = (spec: Listing, lower: Cursor | null): Ledger => ({
  pending: Effect.succeed([{ key: OPEN, lower, upper: null }]),
  commit: (_slice, page) => inTransaction(loadPage(spec, page, true)),
  split: () => Effect.void,
  finish: () => Effect.void
})

/**
 * Boundaries that cut the rows after `from` into about equal parts: the row at each k-th of the
 * remaining count, one `per_page=1` request each (sent together). Whole seconds, so a burst of rows
 * sharing a second stays in one piece.
 */
const plan = <A extends Doc>(store: Store, spec: WalkSpec<A>, slice: Slice, from: Cursor, upper: number, remaining: number) =>
  Effect.gen(function*() {
    const parts = Math.min(store.concurrency, Math.floor(remaining / (store.perPage * MIN_PAGES_PER_SLICE)))
    if (parts < 2) return []
    const offsets = Array.from({ length: parts - 1 }, (_, i) => Math.floor(((i + 1) * remaining) / parts))
    const probes = yield* Effect.forEach(
      offsets,
      (offset) => store.list(spec.path, rangeParams(spec, store, from, upper, { size: 1, number: offset + 1 }), Schema.Unknown),
      { concurrency: "unbounded" }
    )
    // The first piece keeps `from`; a boundary at or before its first second would leave it empty.
    const firstSecond = (wholeSecond(from) ?? Number.NEGATIVE_INFINITY) + 1
    const position = positionOf(spec.field)
    const seconds = [...new Set(probes.flatMap((p) => [position(p.items[0])?.at ?? Number.NaN]))]
      .filter((s) => Number.isFinite(s) && s > firstSecond && s < upper)
      .sort((a, b) => a - b)
    return [...seconds, slice.upper].map((bound, i): Slice => ({
      key: i === seconds.length ? slice.key : String(bound),
      lower: i === 0 ? from : through(seconds[i - 1]! - 1),
      upper: bound
    }))
  })

/** Loads every page of `slice` from `lower` on (each committed before the next, the next read meanwhile), then ends it. */
const walkToEnd = <A extends Doc>(spec: WalkSpec<A>, ledger: Ledger, slice: Slice, range: Range, onPage: StreamWalk<A>["onPage"]) =>
  walkPages(spec, range).pipe(
    Stream.buffer({ capacity: 1 }),
    Stream.runFoldEffect(0, (rows, page) => Effect.as(commitPage(ledger, slice, page, onPage), rows + page.docs.length)),
    Effect.tap(() => ledger.finish(slice))
  )

/** A page and its checkpoint stored, then shown. */
const commitPage = <A extends Doc>(ledger: Ledger, slice: Slice, page: WalkPage<A>, onPage: StreamWalk<A>["onPage"]) =>
  ledger.commit(slice, page).pipe(Effect.zipRight(onPage(page)), pageSpan(page.docs.length, page.rejected.length))

const walkSlice = <A extends Doc>(
  store: Store,
  spec: WalkSpec<A>,
  ledger: Ledger,
  slice: Slice,
  run: StreamWalk<A>
): Effect.Effect<number, StoreError | SqlError, StoreClient | Needs> =>
  Effect.gen(function*() {
    // A bounded slice runs to its own bound even when this run's upper is lower (the store's clock behind, a
    // longer settle): its rows were settled for the run that cut it, and ending it short would skip the rest.
    const upper = slice.upper ?? run.upper
    // The first page's X-WP-Total tells whether the rest is worth splitting.
    const first = yield* firstPage(spec, { lower: slice.lower, upper })
    if (Option.isNone(first)) {
      yield* ledger.finish(slice)
      return 0
    }
    const page = first.value
    yield* commitPage(ledger, slice, page, run.onPage)
    if (page.last) {
      yield* ledger.finish(slice)
      return page.docs.length
    }
    const pieces = yield* plan(store, spec, slice, page.cursor!, upper, page.total - page.docs.length)
    // The walk goes on from the first page: the rows of its last second it loaded are not loaded again.
    const rest = { lower: page.cursor, seen: page.seen }
    if (pieces.length < 2) return page.docs.length + (yield* walkToEnd(spec, ledger, slice, { ...rest, upper }, run.onPage))
    yield* ledger.split(slice, pieces)
    const counts = yield* Effect.forEach(pieces, (piece, i) => sliceSpan(piece)(walkToEnd(spec, ledger, piece, i === 0 ? { ...rest, upper: piece.upper ?? upper } : { lower: piece.lower, upper: piece.upper ?? upper }, run.onPage)), {
      concurrency: "unbounded"
    })
    return counts.reduce((n, c) => n + c, page.docs.length)
  }).pipe(sliceSpan(slice))

/**
 * Loads every row of `spec` the stream has not loaded yet (or, without a stream, the rows after
 * `lower`), up to `upper`: each pending slice is walked, and a slice with enough rows is split into
 * up to STORE_CONCURRENCY pieces walked at once (the store client caps the requests in flight).
 */
export const walkStream = <A extends Doc>(spec: WalkSpec<A>, run: StreamWalk<A>) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const ledger = run.stream === null ? transient(spec, run.lower ?? null) : persisted(spec, run.stream)
    const pending = yield* ledger.pending
    const counts = yield* Effect.forEach(pending, (slice) => walkSlice(store, spec, ledger, slice, run), { concurrency: "unbounded" })
    return counts.reduce((n, c) => n + c, 0)
  }).pipe(walkSpan(spec.path, spec.kind, run.stream))
