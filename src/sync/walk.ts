import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { StoreClient, type QueryParams } from "../store/client.js"
import { type StoreError, StoreDocumentInvalid } from "../store/errors.js"
import type { PageCheck } from "../store/schemas.js"
import { type Cursor, type LoadKind, loadPage } from "../warehouse/writer.js"
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

export interface WalkRun {
  readonly storeId: string
  /** State key the cursor is checkpointed under; null walks without moving any cursor. */
  readonly stream: string | null
  readonly lower: Cursor | null
  /** Exclusive upper bound (epoch second), frozen at the start of the run against the store's clock. */
  readonly upper: number
  readonly onPage: (docs: ReadonlyArray<Doc>, page: { readonly total: number }) => Effect.Effect<void>
}

const stampField = (field: WalkSpec["field"]) => (field === "modified" ? "date_modified_gmt" : "date_created_gmt")
const bounds = (field: WalkSpec["field"]) =>
  field === "modified"
    ? { after: "modified_after", before: "modified_before", orderby: "modified" }
    : { after: "after", before: "before", orderby: "date" }

const isAfter = (second: number, id: number, cursor: Cursor | null) =>
  cursor === null || second > cursor.at || (second === cursor.at && cursor.id !== null && id > cursor.id)

/**
 * Loads every row of `spec` ordered after `run.lower` and before `run.upper`, page by page, each page
 * and its checkpoint in one transaction.
 *
 * Every request restarts from the cursor (modified_after = cursor second − 1, i.e. ≥ that second, then
 * skipping rows at or before the cursor), so rows that change or vanish while we page cannot shift
 * unread rows out of reach. The API's filters are strict and one-second coarse, so when more than a
 * page of rows share the cursor's second, that second is read on its own (`readSecond`).
 */
export const walk = (spec: WalkSpec, run: WalkRun): Effect.Effect<number, StoreError | SqlError, StoreClient | SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const names = bounds(spec.field)
    const stamp = (doc: Doc) => fromApiGmt(String(doc[stampField(spec.field)]))
    let cursor = run.lower
    let loaded = 0

    const checked = (docs: ReadonlyArray<unknown>, path: string) => {
      const problem = spec.check(docs)
      if (problem !== undefined) return Effect.fail(new StoreDocumentInvalid({ url: path, detail: problem }))
      const typed = docs as ReadonlyArray<Doc>
      return Effect.succeed(spec.prepare ? spec.prepare(typed) : typed)
    }
    const save = (docs: ReadonlyArray<Doc>, next: Cursor | null, total: number) =>
      loadPage(spec.kind, run.storeId, docs, run.stream === null ? undefined : { stream: run.stream, cursor: next }).pipe(
        Effect.zipRight(run.onPage(docs, { total })),
        Effect.tap(() => Effect.sync(() => { loaded += docs.length }))
      )

    while (true) {
      if (cursor !== null && cursor.at >= run.upper) break
      const from = cursor === null ? undefined : cursor.id === null ? cursor.at : cursor.at - 1
      const page = yield* store.list(spec.path, {
        ...spec.params,
        [names.after]: from === undefined ? undefined : toApiGmt(from),
        [names.before]: toApiGmt(run.upper),
        dates_are_gmt: true,
        orderby: names.orderby,
        order: "asc",
        per_page: store.perPage,
        page: 1
      })
      const docs = yield* checked(page.items, spec.path)
      const fresh = docs.filter((d) => isAfter(stamp(d), d.id, cursor))
      if (docs.length === 0) break
      if (fresh.length === 0) {
        if (docs.length < store.perPage) break
        // A full page of rows at or before the cursor: they all share the cursor's second.
        const second = cursor!.at
        const done = cursor!.id ?? 0
        yield* readSecond(spec, second, checked, (rows, total) => save(rows.filter((d) => d.id > done), cursor, total))
        cursor = { at: second, id: null }
        yield* save([], cursor, page.total)
        continue
      }
      const last = fresh[fresh.length - 1]!
      cursor = { at: stamp(last), id: last.id }
      yield* save(fresh, cursor, page.total)
      if (docs.length < store.perPage) break
    }
    return loaded
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
  checked: (docs: ReadonlyArray<unknown>, path: string) => Effect.Effect<ReadonlyArray<Doc>, StoreDocumentInvalid>,
  save: (docs: ReadonlyArray<Doc>, total: number) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const names = bounds(spec.field)
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
        const docs = yield* checked(page.items, spec.path)
        yield* save(docs, page.total)
        if (docs.length < store.perPage) break
      }
      if (stable) return
      yield* Effect.logInfo(`${spec.path}: rows left second ${toApiGmt(second)} while it was read; reading it again (pass ${pass + 1})`)
    }
    yield* Effect.logWarning(`${spec.path}: second ${toApiGmt(second)} kept changing over 5 passes; the next run's deletion check will settle it`)
  })
