import { Chunk, type Context, Effect, Option, Schema, Stream } from "effect"
import { type QueryParams, StoreClient } from "../store-client/client.js"
import { StoreDocumentInvalid, type StoreError } from "../store-client/errors.js"
import type { LoadKind } from "../warehouse/loader.js"
import { mayHoldNul, type Rejected, screener } from "../warehouse/screen.js"
import { type Cursor, through, wholeSecond } from "./cursor.js"
import { fromApiGmt, toApiGmt } from "./time.js"

export type Doc = { readonly id: number } & Readonly<Record<string, unknown>>

/** How one list endpoint is walked in (date, id) order. */
export interface WalkSpec<A extends Doc = Doc> {
  readonly path: string
  readonly params: QueryParams
  /** Which date the cursor follows: `modified` (modified_after/before) or `created` (after/before). */
  readonly field: "modified" | "created"
  readonly kind: LoadKind
  /** What every document must hold; the rest of it is kept as the store sent it. */
  readonly schema: Schema.Schema<A, any>
}

/** A walk's endpoint and order, whatever its documents' schema. */
export type Listing = Omit<WalkSpec, "schema">

/** Rows of one second a walk has loaded: the next request reads that second again and skips them. */
export interface Seen {
  readonly at: number
  readonly ids: ReadonlySet<number>
}

/** Rows dated after `lower` (null: from the start) and before the epoch second `upper`. */
export interface Range {
  readonly lower: Cursor | null
  readonly upper: number
  /** Rows of the second after `lower` already loaded (a walk resumed from a page's cursor skips them). */
  readonly seen?: Seen | null
}

/** One page of a walk: rows not loaded yet, and the cursor that covers them once they are. */
export interface WalkPage<A extends Doc = Doc> {
  /** The rows that fit the stream's schema (NULs removed). */
  readonly docs: ReadonlyArray<A>
  /** The rows that do not: quarantined with the page, the cursor passing them all the same. */
  readonly rejected: ReadonlyArray<Rejected>
  /** Ids of the rows whose NUL characters were removed. */
  readonly cleaned: ReadonlyArray<string>
  readonly cursor: Cursor | null
  /** The rows of the second after `cursor` loaded so far, for a walk resumed from this page. */
  readonly seen: Seen | null
  /** X-WP-Total of the request that read it. */
  readonly total: number
  /** The answer's JSON as received (staged as is), unless NULs were removed from some of `docs`. */
  readonly json: string | undefined
  /** Where `docs` are in `json`'s array (1-based), when not every item of it is one of them. */
  readonly places: ReadonlyArray<number> | undefined
  /** No rows of the range are left after it. */
  readonly last: boolean
}

type Store = Context.Tag.Service<StoreClient>

/** The document field a walk's position is read from. */
export const stampField = (field: WalkSpec["field"]) => (field === "modified" ? "date_modified_gmt" : "date_created_gmt")
export const bounds = (field: WalkSpec["field"]) =>
  field === "modified"
    ? { after: "modified_after", before: "modified_before", orderby: "modified" }
    : { after: "after", before: "before", orderby: "date" }

/** A row's id, when it is one (a positive integer). */
const idNumber = (item: unknown): number | null => {
  const id = item !== null && typeof item === "object" ? (item as Record<string, unknown>)["id"] : undefined
  return typeof id === "number" && Number.isInteger(id) && id > 0 ? id : null
}

/** A row's place in the walk's order, read from whatever the store sent; null when its id or date cannot be read. */
export const positionOf = (field: WalkSpec["field"]) => (item: unknown): Cursor | null => {
  const id = idNumber(item)
  if (id === null) return null
  const at = fromApiGmt(String((item as Record<string, unknown>)[stampField(field)]))
  return Number.isFinite(at) ? { at, id } : null
}

/**
 * The list request for the rows dated after the cursor's last whole second (the API's filters are strict and
 * one-second coarse), oldest first.
 */
export const rangeParams = (spec: Listing, store: Store, cursor: Cursor | null, upper: number, page = { size: store.perPage, number: 1 }) => {
  const names = bounds(spec.field)
  const from = wholeSecond(cursor)
  return {
    ...spec.params,
    [names.after]: from === null ? undefined : toApiGmt(from),
    [names.before]: toApiGmt(upper),
    dates_are_gmt: true,
    orderby: names.orderby,
    order: "asc",
    per_page: page.size,
    page: page.number
  }
}

/** Where a walk stands between two requests: in the range from a cursor, or reading one crowded second. */
type Step =
  | { readonly tag: "range"; readonly cursor: Cursor | null; readonly seen: Seen | null }
  | {
    readonly tag: "second"
    /** The walk's cursor when it met the crowded second: pages of the second keep it until the second is whole. */
    readonly cursor: Cursor | null
    readonly seen: Seen
    readonly pass: number
    readonly pageNo: number
    readonly firstTotal: number | undefined
    readonly stable: boolean
    /** The ids this pass leaves out of its requests (`exclude`): those loaded when it began, up to EXCLUDE_MAX. */
    readonly exclude: ReadonlyArray<number> | undefined
  }

const SECOND_PASSES = 5

/**
 * The pages of every row of `spec` in `range`, oldest first, as a pull stream.
 *
 * Invariant: a page's cursor never claims a row that is not loaded, whatever order the store gives rows that
 * share a second in (WooCommerce sorts by the date alone, and MariaDB returns a second's rows in any order,
 * differently from one query to the next). Each request asks for the rows dated after the cursor's second,
 * page 1, oldest first. A full page whose last second is L holds every row dated before L, but maybe not
 * every row of L: the cursor moves to L − 1 and the next request reads L again, skipping the rows of L this
 * walk already loaded. A full page of one second cannot move the cursor at all: that second is read on its
 * own, by id (the one total order the API has), and only once it is whole does the cursor pass it
 * (`readSecond`). Restarting every request from the cursor means rows that change or vanish while we page
 * cannot shift unread rows out of reach. The next request is known as soon as a page arrives, so a buffered
 * consumer loads one page while the next is read.
 */
export const walkPages = <A extends Doc>(spec: WalkSpec<A>, range: Range): Stream.Stream<WalkPage<A>, StoreError, StoreClient> =>
  Stream.unwrap(Effect.map(StoreClient, (store) => {
    if (isEmpty(range)) return Stream.empty
    return Stream.paginateChunkEffect(startOf(range), (step: Step) => (step.tag === "range" ? readRange(spec, store, range, step) : readSecond(spec, store, range, step)))
  }))

/**
 * The first page `walkPages` gives, read without a stream: the walk's first step reads one page at most. Most
 * slices of an incremental sync end with it, and a stream's machinery cost a slice about a thousand Effect
 * operations around its one request (counted on the simulator: an empty listing's slice, 1,125).
 */
export const firstPage = <A extends Doc>(spec: WalkSpec<A>, range: Range): Effect.Effect<Option.Option<WalkPage<A>>, StoreError, StoreClient> =>
  isEmpty(range)
    ? Effect.succeedNone
    : Effect.flatMap(StoreClient, (store) => Effect.map(readRange(spec, store, range, startOf(range)), ([pages]) => Chunk.head(pages)))

/** A range whose lower cursor has reached its upper bound's last second holds nothing to read. */
const isEmpty = (range: Range) => (wholeSecond(range.lower) ?? Number.NEGATIVE_INFINITY) >= range.upper - 1
const startOf = (range: Range): Extract<Step, { tag: "range" }> => ({ tag: "range", cursor: range.lower, seen: range.seen ?? null })

/**
 * How a page's documents reach the warehouse: the answer's JSON text as received, with the places of the items
 * that are documents (indexes into the answer, 0-based) when some are not (rows already loaded, misfits), so
 * nothing is serialized again. Documents cleaned of NULs are not what the text says: those pages are serialized.
 */
const staged = (json: string, items: number, kept: ReadonlyArray<number>, cleaned: boolean): Pick<WalkPage, "json" | "places"> => {
  if (kept.length === 0 || cleaned) return { json: undefined, places: undefined }
  return { json, places: kept.length === items ? undefined : kept.map((i) => i + 1) }
}

type Next<A extends Doc> = readonly [Chunk.Chunk<WalkPage<A>>, Option.Option<Step>]
const next = <A extends Doc>(pages: ReadonlyArray<WalkPage<A>>, step: Option.Option<Step>): Next<A> => [Chunk.fromIterable(pages), step]

/** `seen` with the ids of `second` among `placed` added (a new second starts a new set). */
const remember = (seen: Seen | null, second: number, placed: ReadonlyArray<Cursor | null>): Seen => {
  const ids = new Set(seen?.at === second ? seen.ids : [])
  for (const p of placed) if (p !== null && p.at === second) ids.add(p.id!)
  return { at: second, ids }
}

const wasSeen = (seen: Seen | null, at: Cursor | null) => seen !== null && at !== null && at.at === seen.at && seen.ids.has(at.id!)

/** A page of the rows at `indexes` of a list answer, checked row by row against the stream's schema. */
const pageOf = <A extends Doc>(
  spec: WalkSpec<A>,
  page: { readonly items: ReadonlyArray<unknown>; readonly json: string; readonly total: number },
  indexes: ReadonlyArray<number>,
  at: { readonly cursor: Cursor | null; readonly seen: Seen | null; readonly last: boolean }
): WalkPage<A> => {
  const { docs, kept, rejected, cleaned } = screener(spec.kind, spec.schema)(indexes.map((i) => page.items[i]), mayHoldNul(page.json))
  return { docs, rejected, cleaned, ...staged(page.json, page.items.length, kept.map((k) => indexes[k]!), cleaned.length > 0), ...at, total: page.total }
}

/**
 * Pages are requested without a schema and checked row by row (the cost of checking them whole), so a row that
 * does not fit is set aside with its page instead of failing it; the cursor passes every row that has a place.
 */
const readRange = <A extends Doc>(spec: WalkSpec<A>, store: Store, range: Range, step: Extract<Step, { tag: "range" }>) => {
  const position = positionOf(spec.field)
  const request = store.list(spec.path, rangeParams(spec, store, step.cursor, range.upper), Schema.Unknown)
  return Effect.flatMap(request, (page): Effect.Effect<Next<A>, StoreDocumentInvalid> => {
    const { items } = page
    if (items.length === 0) return Effect.succeed(next([], Option.none()))
    const placed = items.map(position)
    const fresh = items.flatMap((_, i) => (wasSeen(step.seen, placed[i]!) ? [] : [i]))
    const seconds = placed.flatMap((p) => (p === null ? [] : [p.at]))
    const full = items.length === store.perPage
    if (!full) {
      // The range's last page: every row of it is here (rows without a place are set aside with it).
      const cursor = seconds.length === 0 ? step.cursor : through(Math.max(...seconds))
      return Effect.succeed(next([pageOf(spec, page, fresh, { cursor, seen: null, last: true })], Option.none()))
    }
    if (seconds.length === 0) {
      return Effect.fail(new StoreDocumentInvalid({ url: spec.path, detail: "a full page without one row whose id and date can be read" }))
    }
    const last = Math.max(...seconds)
    // Every second before `last` is whole; `last` may go on past this page.
    const before = wholeSecond(step.cursor) ?? Number.NEGATIVE_INFINITY
    const cursor = last - 1 > before ? through(last - 1) : step.cursor
    const seen = remember(step.seen, last, placed)
    const read = pageOf(spec, page, fresh, { cursor, seen, last: false })
    // A page of one second: the next request would bring the same rows again.
    const crowded = Math.min(...seconds) === last
    return Effect.succeed(next([read], Option.some(
      crowded
        ? { tag: "second", cursor, seen, pass: 1, pageNo: 1, firstTotal: undefined, stable: true, exclude: excluding(seen) }
        : { tag: "range", cursor, seen }
    )))
  })
}

/**
 * The ids a pass over a crowded second asks the store to leave out: the rows of it already loaded, so the pass
 * reads only the rest (a bulk edit of 150 orders costs one request by id after the page that met it, not two).
 * At most EXCLUDE_MAX, so the URL stays under 4 KB with ids of 12 digits (servers refuse from 8 KB); a second with
 * more rows loaded is read whole by id, its loaded rows skipped.
 */
const EXCLUDE_MAX = 250
const excluding = (seen: Seen) => (seen.ids.size > 0 && seen.ids.size <= EXCLUDE_MAX ? [...seen.ids].sort((a, b) => a - b) : undefined)

/**
 * Reads every row of one second, ordered by id, skipping the rows this walk already loaded. Rows only ever leave
 * a past second (an edit moves them to "now"), and a departure can shift an unread row onto a page already read;
 * so a pass counts only when the second's X-WP-Total did not change during it. Until then the cursor stays put,
 * so a crash re-reads the second.
 */
const readSecond = <A extends Doc>(spec: WalkSpec<A>, store: Store, range: Range, step: Extract<Step, { tag: "second" }>) =>
  Effect.gen(function*() {
    const names = bounds(spec.field)
    const second = step.seen.at
    const page = yield* store.list(spec.path, {
      ...spec.params,
      [names.after]: toApiGmt(second - 1),
      [names.before]: toApiGmt(second + 1),
      dates_are_gmt: true,
      orderby: "id",
      order: "asc",
      per_page: store.perPage,
      page: step.pageNo,
      ...(step.exclude === undefined ? {} : { exclude: step.exclude.join(",") })
    }, Schema.Unknown)
    const firstTotal = step.firstTotal ?? page.total
    const stable = step.stable && page.total === firstTotal
    // A row without an id or date is screened (and set aside) with the rest.
    const placed = page.items.map(positionOf(spec.field))
    const unread = page.items.flatMap((_, i) => (wasSeen(step.seen, placed[i]!) ? [] : [i]))
    const seen = remember(step.seen, second, placed)
    const read = pageOf(spec, page, unread, { cursor: step.cursor, seen, last: false })
    if (page.items.length === store.perPage) return next([read], Option.some({ ...step, seen, pageNo: step.pageNo + 1, firstTotal, stable }))
    if (!stable && step.pass < SECOND_PASSES) {
      yield* Effect.logInfo(`${spec.path}: rows left second ${toApiGmt(second)} while it was read; reading it again (pass ${step.pass + 1})`)
      return next([read], Option.some({ ...step, seen, pass: step.pass + 1, pageNo: 1, firstTotal: undefined, stable: true, exclude: excluding(seen) }))
    }
    if (!stable) {
      yield* Effect.logWarning(`${spec.path}: second ${toApiGmt(second)} kept changing over 5 passes; a row of it may be missed until the reconciliation (shopsync verify) finds it`)
    }
    const after = through(second)
    const whole: WalkPage<A> = { docs: [], rejected: [], cleaned: [], json: undefined, places: undefined, cursor: after, seen: null, total: page.total, last: after.at >= range.upper - 1 }
    return next([read, whole], whole.last ? Option.none() : Option.some({ tag: "range", cursor: after, seen: null }))
  })
