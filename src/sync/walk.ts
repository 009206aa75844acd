import { Chunk, type Context, Effect, Option, Schema, Stream } from "effect"
import { type QueryParams, StoreClient } from "../store-client/client.js"
import { StoreDocumentInvalid, type StoreError } from "../store-client/errors.js"
import type { LoadKind } from "../warehouse/loader.js"
import { mayHoldNul, type Rejected, screener } from "../warehouse/screen.js"
import { type Cursor, isAfter } from "./cursor.js"
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

/** Rows ordered after `lower` (null: from the start) and dated before the epoch second `upper`. */
export interface Range {
  readonly lower: Cursor | null
  readonly upper: number
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

const stampField = (field: WalkSpec["field"]) => (field === "modified" ? "date_modified_gmt" : "date_created_gmt")
const bounds = (field: WalkSpec["field"]) =>
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
 * The list request for rows from `cursor` on (the API's filters are strict and one-second coarse: with an
 * id in the cursor its second is asked again and the rows at or before it are skipped by the caller).
 */
export const rangeParams = (spec: Listing, store: Store, cursor: Cursor | null, upper: number, page = { size: store.perPage, number: 1 }) => {
  const names = bounds(spec.field)
  const from = cursor === null ? undefined : cursor.id === null ? cursor.at : cursor.at - 1
  return {
    ...spec.params,
    [names.after]: from === undefined ? undefined : toApiGmt(from),
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
  | { readonly tag: "range"; readonly cursor: Cursor | null }
  | {
    readonly tag: "second"
    /** The walk's cursor when it met the crowded second: pages of the second keep it until the second is whole. */
    readonly cursor: Cursor
    readonly pass: number
    readonly pageNo: number
    readonly firstTotal: number | undefined
    readonly stable: boolean
  }

const SECOND_PASSES = 5

/**
 * The pages of every row of `spec` in `range`, in (date, id) order, as a pull stream: each request restarts from
 * the cursor (modified_after = cursor second − 1, i.e. ≥ that second, then skipping rows at or before it), so rows
 * that change or vanish while we page cannot shift unread rows out of reach. The next request is known as soon as
 * a page arrives, so a buffered consumer loads one page while the next is read. When more than a page of rows
 * share the cursor's second (a bulk edit), that second is read on its own, by id (`readSecond`).
 */
export const walkPages = <A extends Doc>(spec: WalkSpec<A>, range: Range): Stream.Stream<WalkPage<A>, StoreError, StoreClient> =>
  Stream.unwrap(Effect.map(StoreClient, (store) => {
    const start: Step = { tag: "range", cursor: range.lower }
    if (range.lower !== null && range.lower.at >= range.upper) return Stream.empty
    return Stream.paginateChunkEffect(start, (step: Step) => (step.tag === "range" ? readRange(spec, store, range, step.cursor) : readSecond(spec, store, range, step)))
  }))

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

/**
 * Pages are requested without a schema and checked row by row (the cost of checking them whole), so a row that
 * does not fit is set aside with its page instead of failing it; the cursor passes every row that has a place.
 */
const readRange = <A extends Doc>(spec: WalkSpec<A>, store: Store, range: Range, cursor: Cursor | null) => {
  const screen = screener(spec.kind, spec.schema)
  const position = positionOf(spec.field)
  const request = store.list(spec.path, rangeParams(spec, store, cursor, range.upper), Schema.Unknown)
  return Effect.flatMap(request, (page): Effect.Effect<Next<A>, StoreDocumentInvalid> => {
    const { items } = page
    if (items.length === 0) return Effect.succeed(next([], Option.none()))
    const placed = items.map((item, i) => ({ item, at: position(item), i }))
    const fresh = placed.filter((p) => p.at === null || isAfter(p.at.at, p.at.id!, cursor))
    const full = items.length === store.perPage
    const lastPlaced = fresh.findLast((p) => p.at !== null)?.at
    if (lastPlaced === undefined && full) {
      // A full page of rows at or before the cursor: they all share the cursor's second.
      return cursor === null
        ? Effect.fail(new StoreDocumentInvalid({ url: spec.path, detail: "a full page without one row whose id and date can be read" }))
        : Effect.succeed(next([], Option.some({ tag: "second", cursor, pass: 1, pageNo: 1, firstTotal: undefined, stable: true })))
    }
    if (fresh.length === 0) return Effect.succeed(next([], Option.none()))
    const { docs, kept, rejected, cleaned } = screen(fresh.map((p) => p.item), mayHoldNul(page.json))
    const moved = lastPlaced ?? cursor
    const read: WalkPage<A> = { docs, rejected, cleaned, ...staged(page.json, items.length, kept.map((k) => fresh[k]!.i), cleaned.length > 0), cursor: moved, total: page.total, last: !full }
    return Effect.succeed(next([read], full ? Option.some({ tag: "range", cursor: moved }) : Option.none()))
  })
}

/**
 * Reads every row of one second (ordered by id). Rows only ever leave a past second (an edit moves them to
 * "now"), and a departure can shift an unread row onto a page already read; so a pass counts only when the
 * second's X-WP-Total did not change during it. Until then the cursor stays put, so a crash re-reads the second.
 */
const readSecond = <A extends Doc>(spec: WalkSpec<A>, store: Store, range: Range, step: Extract<Step, { tag: "second" }>) =>
  Effect.gen(function*() {
    const names = bounds(spec.field)
    const second = step.cursor.at
    const done = step.cursor.id ?? 0
    const page = yield* store.list(spec.path, {
      ...spec.params,
      [names.after]: toApiGmt(second - 1),
      [names.before]: toApiGmt(second + 1),
      dates_are_gmt: true,
      orderby: "id",
      order: "asc",
      per_page: store.perPage,
      page: step.pageNo
    }, Schema.Unknown)
    const firstTotal = step.firstTotal ?? page.total
    const stable = step.stable && page.total === firstTotal
    // A row without an id cannot be placed before `done`: it is screened (and set aside) with the rest.
    const unread = page.items.flatMap((d, i) => ((idNumber(d) ?? Infinity) > done ? [i] : []))
    const { docs, kept, rejected, cleaned } = screener(spec.kind, spec.schema)(unread.map((i) => page.items[i]), mayHoldNul(page.json))
    const read: WalkPage<A> = { docs, rejected, cleaned, ...staged(page.json, page.items.length, kept.map((k) => unread[k]!), cleaned.length > 0), cursor: step.cursor, total: page.total, last: false }
    if (page.items.length === store.perPage) return next([read], Option.some({ ...step, pageNo: step.pageNo + 1, firstTotal, stable }))
    if (!stable && step.pass < SECOND_PASSES) {
      yield* Effect.logInfo(`${spec.path}: rows left second ${toApiGmt(second)} while it was read; reading it again (pass ${step.pass + 1})`)
      return next([read], Option.some({ ...step, pass: step.pass + 1, pageNo: 1, firstTotal: undefined, stable: true }))
    }
    if (!stable) {
      yield* Effect.logWarning(`${spec.path}: second ${toApiGmt(second)} kept changing over 5 passes; the next run's deletion check will settle it`)
    }
    const after: Cursor = { at: second, id: null }
    const whole: WalkPage<A> = { docs: [], rejected: [], cleaned: [], json: undefined, places: undefined, cursor: after, total: page.total, last: after.at >= range.upper - 1 }
    return next([read, whole], whole.last ? Option.none() : Option.some({ tag: "range", cursor: after }))
  })
