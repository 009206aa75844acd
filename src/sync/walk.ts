import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { type Context, Effect } from "effect"
import { StoreClient, type QueryParams } from "../store-client/client.js"
import { type StoreError, StoreDocumentInvalid } from "../store-client/errors.js"
import type { PageCheck } from "../store-client/schemas.js"
import type { Cursor, LoadKind } from "../warehouse/writer.js"
import { fromApiGmt, toApiGmt } from "./time.js"

export type Doc = Record<string, unknown> & { readonly id: number }

/** How one list endpoint is walked in (date, id) order. */
export interface WalkSpec {
  readonly path: string
  readonly params: QueryParams
  /** Which date the cursor follows: `modified` (modified_after/before) or `created` (after/before). */
  readonly field: "modified" | "created"
  readonly kind: LoadKind
  /** Validates a page (Schema) before anything is written. */
  readonly check: PageCheck
  /** Adds what the warehouse needs and the endpoint leaves out (a parent id, say). */
  readonly prepare?: (docs: ReadonlyArray<Doc>) => ReadonlyArray<Doc>
}

/** Rows ordered after `lower` (null: from the start) and dated before the epoch second `upper`. */
interface Range {
  readonly lower: Cursor | null
  readonly upper: number
}

/**
 * Loads a page's new rows and checkpoints `cursor` (every row at or before it is then loaded), in one
 * transaction. Called in walk order, one page at a time; `json` is the rows' JSON when the page was
 * taken whole.
 */
type Commit = (
  docs: ReadonlyArray<Doc>,
  cursor: Cursor | null,
  total: number,
  json?: string
) => Effect.Effect<void, SqlError, SqlClient.SqlClient>

interface Walked {
  readonly rows: number
  readonly cursor: Cursor | null
  /** X-WP-Total of the first request: the rows from `lower`'s second to `upper`. */
  readonly total: number
  /** False when the walk stopped early (`firstPageOnly`) with rows left in the range. */
  readonly done: boolean
}

type Store = Context.Tag.Service<StoreClient>

const stampField = (field: WalkSpec["field"]) => (field === "modified" ? "date_modified_gmt" : "date_created_gmt")
const bounds = (field: WalkSpec["field"]) =>
  field === "modified"
    ? { after: "modified_after", before: "modified_before", orderby: "modified" }
    : { after: "after", before: "before", orderby: "date" }

/** A row's position second (epoch) in the walk's order. */
export const stampOf = (field: WalkSpec["field"]) => (doc: Doc) => fromApiGmt(String(doc[stampField(field)]))

const isAfter = (second: number, id: number, cursor: Cursor | null) =>
  cursor === null || second > cursor.at || (second === cursor.at && cursor.id !== null && id > cursor.id)

/**
 * The list request for rows from `cursor` on (the API's filters are strict and one-second coarse: with an
 * id in the cursor its second is asked again and the rows at or before it are skipped by the caller).
 */
export const rangeParams = (spec: WalkSpec, store: Store, cursor: Cursor | null, upper: number, page = { size: store.perPage, number: 1 }) => {
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

const checker = (spec: WalkSpec) => (docs: ReadonlyArray<unknown>) => {
  const problem = spec.check(docs)
  if (problem !== undefined) return Effect.fail(new StoreDocumentInvalid({ url: spec.path, detail: problem }))
  const typed = docs as ReadonlyArray<Doc>
  return Effect.succeed(spec.prepare ? spec.prepare(typed) : typed)
}

/**
 * Loads every row of `spec` in `range`, page by page, each page with its checkpoint in one transaction.
 *
 * Every request restarts from the cursor (modified_after = cursor second − 1, i.e. ≥ that second, then
 * skipping rows at or before the cursor), so rows that change or vanish while we page cannot shift
 * unread rows out of reach. That also means the next request is known as soon as a page arrives: it is
 * sent while the page loads, and loads and checkpoints still happen strictly in order. The API's filters
 * are one-second coarse, so when more than a page of rows share the cursor's second, that second is
 * read on its own (`readSecond`).
 */
export const walkRange = (
  spec: WalkSpec,
  range: Range,
  commit: Commit,
  options: { readonly firstPageOnly?: boolean } = {}
): Effect.Effect<Walked, StoreError | SqlError, StoreClient | SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const stamp = stampOf(spec.field)
    const checked = checker(spec)
    let cursor = range.lower
    let rows = 0
    const save = (docs: ReadonlyArray<Doc>, next: Cursor | null, total: number, json?: string) =>
      commit(docs, next, total, json).pipe(Effect.tap(() => Effect.sync(() => { rows += docs.length })))
    const fetch = (from: Cursor | null) =>
      store.list(spec.path, rangeParams(spec, store, from, range.upper)).pipe(
        Effect.flatMap((page) => Effect.map(checked(page.items), (docs) => ({ docs, total: page.total, json: page.json })))
      )

    if (cursor !== null && cursor.at >= range.upper) return { rows, cursor, total: 0, done: true }
    let page = yield* fetch(cursor)
    const total = page.total
    for (let pages = 1; ; pages++) {
      const { docs } = page
      if (docs.length === 0) break
      const fresh = docs.filter((d) => isAfter(stamp(d), d.id, cursor))
      if (fresh.length === 0) {
        if (docs.length < store.perPage) break
        // A full page of rows at or before the cursor: they all share the cursor's second.
        const second = cursor!.at
        const done = cursor!.id ?? 0
        yield* readSecond(spec, second, (batch, t) => save(batch.filter((d) => d.id > done), cursor, t))
        cursor = { at: second, id: null }
        yield* save([], cursor, page.total)
        if (cursor.at >= range.upper - 1) break
        page = yield* fetch(cursor)
        continue
      }
      const last = fresh[fresh.length - 1]!
      cursor = { at: stamp(last), id: last.id }
      const json = fresh.length === docs.length && spec.prepare === undefined ? page.json : undefined
      if (docs.length < store.perPage) {
        yield* save(fresh, cursor, page.total, json)
        break
      }
      if (options.firstPageOnly && pages === 1) {
        yield* save(fresh, cursor, page.total, json)
        return { rows, cursor, total, done: false }
      }
      // The page is saved even when the prefetch fails; then the failure stops the walk.
      const [, next] = yield* Effect.all([save(fresh, cursor, page.total, json), Effect.either(fetch(cursor))], { concurrency: 2 })
      page = yield* next
    }
    return { rows, cursor, total, done: true }
  })

/**
 * Reads every row of one second (ordered by id). Rows only ever leave a past second (an edit moves
 * them to "now"), and a departure can shift an unread row onto a page already read; so a pass counts
 * only when the second's X-WP-Total did not change during it. Until then the cursor stays put, so a
 * crash here re-reads the second.
 */
const readSecond = (
  spec: WalkSpec,
  second: number,
  save: (docs: ReadonlyArray<Doc>, total: number) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const names = bounds(spec.field)
    const checked = checker(spec)
    for (let pass = 1; pass <= 5; pass++) {
      let firstTotal: number | undefined
      let stable = true
      for (let pageNo = 1; ; pageNo++) {
        const page = yield* store.list(spec.path, {
          ...spec.params,
          [names.after]: toApiGmt(second - 1),
          [names.before]: toApiGmt(second + 1),
          dates_are_gmt: true,
          orderby: "id",
          order: "asc",
          per_page: store.perPage,
          page: pageNo
        })
        firstTotal ??= page.total
        if (page.total !== firstTotal) stable = false
        const docs = yield* checked(page.items)
        yield* save(docs, page.total)
        if (docs.length < store.perPage) break
      }
      if (stable) return
      yield* Effect.logInfo(`${spec.path}: rows left second ${toApiGmt(second)} while it was read; reading it again (pass ${pass + 1})`)
    }
    yield* Effect.logWarning(`${spec.path}: second ${toApiGmt(second)} kept changing over 5 passes; the next run's deletion check will settle it`)
  })
