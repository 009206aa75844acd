import { Context, Effect, Schema } from "effect"
import { type QueryParams, StoreClient } from "../../store-client/client.js"
import { StoreDocumentInvalid, type StoreError } from "../../store-client/errors.js"
import { fromApiGmt } from "../time.js"
import { StampTable } from "./stamp-table.js"

/** What a listing tells of one row: its id, its date (epoch second; null when the store gives none), whether it is trash. */
export interface Listed {
  readonly id: number
  readonly at: number | null
  readonly trash: boolean
}

/** One listing of a resource: its endpoint, its filters, and the date field that stamps a row. */
export interface ListingSpec {
  readonly path: string
  readonly params: QueryParams
  readonly stamp: "date_modified_gmt" | "date_created_gmt"
  /** The rows of this listing are in the trash (status=trash). */
  readonly trash: boolean
}

/** A trimmed row (`_fields`): every field but the id may be absent or null. */
const Row = Schema.Struct({
  id: Schema.Int,
  date_modified_gmt: Schema.optional(Schema.NullOr(Schema.String)),
  date_created_gmt: Schema.optional(Schema.NullOr(Schema.String))
})
type Row = typeof Row.Type

/** How many times a seam steps back looking for the last row it read before the listing counts as unreadable. */
const MAX_STEPS_BACK = 10

/** The rows of a listing with ids in (after, through]: every row of that range the store had throughout was read. */
export interface ListingWindow {
  readonly after: number
  /** Infinity for the listing's last window. */
  readonly through: number
  readonly rows: StampTable
  /** The listing's rows as its first page counted them (X-WP-Total): how far the windows have come. */
  readonly total: number
}

/** Pages read before their rows are handed on: 100, about 10,000 rows at a time whatever the store's size (tests take fewer). */
export class WindowPages extends Context.Reference<WindowPages>()("shopsync/reconcile/WindowPages", { defaultValue: () => 100 }) {}

/**
 * Every row of a listing, by id, paged by `offset` in id order (`orderby=id` is the only total order: rows sharing
 * a date come in any order). The API has no `id > N` filter, so there is no keyset; instead consecutive pages
 * overlap by one row: page k starts at the row page k−1 ended with. A row removed before it while the pages are
 * read shifts the rest back, and shows as a page that does not start with that row: then that seam is read again
 * from further back (`seam`) until the row read last is found, so no row that exists throughout is skipped. Rows
 * only added (new ids land at the end) never shift a seam. The pages are read `WindowPages` at a time (together),
 * and each window's rows go to `visit` before the next window is read, so that a listing of any length holds one
 * window's rows: the windows partition the ids (a row listed twice keeps its copy read last).
 */
export const listWindows = <E, R>(spec: ListingSpec, visit: (window: ListingWindow) => Effect.Effect<void, E, R>) =>
  Effect.gen(function*() {
    const [store, windowPages] = [yield* StoreClient, yield* WindowPages]
    const size = store.perPage
    let rows = new StampTable()
    const add = (items: ReadonlyArray<Row>) => items.forEach((r) => rows.add(toListed(spec, r)))
    const read = (offset: number) =>
      Effect.flatMap(
        store.list(spec.path, { ...spec.params, _fields: fieldsOf(spec), orderby: "id", order: "asc", per_page: size, offset }, Row),
        (page) => inIdOrder(spec.path, page.items).pipe(Effect.as({ items: page.items, total: page.total }))
      )
    // A page's rows go into the window's table as it comes; only its edges are kept, for the seams.
    const edges = (offset: number, items: ReadonlyArray<Row>): PageEdges => {
      add(items)
      return { offset, first: items[0]?.id, last: items.at(-1)?.id, full: items.length === size }
    }
    const step = Math.max(1, size - 1)

    const first = yield* read(0)
    const hand = (after: number, through: number) => visit({ after, through, rows: rows.between(after, through), total: first.total })
    let before = edges(0, first.items)
    if (!before.full) return yield* hand(-Infinity, Infinity)
    const offsets = Array.from({ length: pagesFor(first.total, size) - 1 }, (_, i) => (i + 1) * step)
    let after = -Infinity
    for (let start = 0; ; start += windowPages) {
      const pages = yield* Effect.forEach(offsets.slice(start, start + windowPages), (offset) => Effect.map(read(offset), (p) => edges(offset, p.items)), {
        concurrency: store.concurrency
      })
      for (const page of pages) {
        // A page that starts after the row its predecessor ended with: rows before it left, and some may be skipped.
        const next = page.first
        if (next === undefined || next > before.last!) yield* seam(read, add, { path: spec.path, last: before.last!, until: next ?? Infinity, offset: Math.max(0, page.offset - step), step, size })
        before = page
        // A short page: the listing ends there (it shrank while it was read).
        if (!page.full) return yield* hand(after, Infinity)
      }
      if (start + windowPages < offsets.length) {
        // Every row up to this window's last was read: the next window starts after it.
        yield* hand(after, before.last!)
        after = before.last!
        rows = new StampTable()
        continue
      }
      // The store grew while it was read (or its first total was short): on from the last page while pages come full.
      yield* seam(read, add, { path: spec.path, last: before.last!, until: Infinity, offset: before.offset + step, step, size })
      return yield* hand(after, Infinity)
    }
  })

/** Every row of a listing in one table (a row listed twice keeps its copy read last): see `listWindows`. */
export const listAll = (spec: ListingSpec, rows = new StampTable()) =>
  Effect.as(listWindows(spec, (window) => Effect.sync(() => {
    for (const row of window.rows.values()) rows.add(row)
  })), rows)

/**
 * Fails unless the rows come in ascending id order: windows and seams rest on it. A store (or a plugin) that
 * ignored `orderby=id` would have every row outside its window taken for gone, each confirmed by a GET of its own.
 */
const inIdOrder = (path: string, items: ReadonlyArray<Row>) => {
  const i = items.findIndex((r, k) => k > 0 && r.id <= items[k - 1]!.id)
  return i < 0 ? Effect.void : Effect.fail(new StoreDocumentInvalid({
    url: path,
    detail: `a listing asked in id order (orderby=id) came with id ${items[i]!.id} after ${items[i - 1]!.id}; ` +
      "the reconciliation needs that order (a plugin may override it)"
  }))
}

/** What the seams need of a page read: where it was read from, its first and last ids, whether it came full. */
interface PageEdges {
  readonly offset: number
  readonly first: number | undefined
  readonly last: number | undefined
  readonly full: boolean
}

/** Pages needed to cover `total` rows when consecutive pages share one row. */
const pagesFor = (total: number, size: number) => (total <= size ? 1 : 1 + Math.ceil((total - size) / Math.max(1, size - 1)))

const fieldsOf = (spec: ListingSpec) => `id,${spec.stamp}`

const toListed = (spec: ListingSpec, r: Row): Listed => {
  const value = r[spec.stamp]
  return { id: r.id, at: value === undefined || value === null || value === "" ? null : fromApiGmt(value), trash: spec.trash }
}

/**
 * Reads the rows after `last` up to `until` (exclusive; Infinity: to the end) from about `offset`, in pages
 * overlapping by one row: a page that starts after `last` means rows before it left meanwhile, so it steps back a
 * page; once `last` (or a row before it) is in the page, what follows it is collected.
 */
const seam = (
  read: (offset: number) => Effect.Effect<{ items: ReadonlyArray<Row> }, StoreError>,
  add: (items: ReadonlyArray<Row>) => void,
  from: { path: string; last: number; until: number; offset: number; step: number; size: number }
) =>
  Effect.gen(function*() {
    let { last, offset } = from
    let back = 0
    for (;;) {
      const { items } = yield* read(offset)
      const head = items[0]?.id
      if (offset > 0 && (head === undefined || head > last)) {
        if (++back > MAX_STEPS_BACK) return yield* Effect.logWarning(`${from.path}: the listing kept shifting while it was read; rows after id ${last} may be left to the next pass`)
        offset = Math.max(0, offset - from.step)
        continue
      }
      add(items.filter((r) => r.id > last))
      const end = items[items.length - 1]?.id
      if (items.length < from.size || end === undefined || end >= from.until) return
      last = end
      offset += from.step
    }
  })
