import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { StoreClient, type QueryParams } from "../store-client/client.js"
import type { StoreError } from "../store-client/errors.js"
import { idsOf, query } from "../warehouse/writer.js"
import { toApiGmt } from "./time.js"

/** A resource whose deletions are found by comparing counts per date range with the store. */
export interface DeletionSpec {
  readonly table: "orders" | "products" | "refunds"
  readonly path: string
  readonly field: "modified" | "created"
  /** The listings that together hold every row the store still has (e.g. status=any and status=trash). */
  readonly listings: ReadonlyArray<QueryParams>
  /**
   * Whether a row missing from its range is really gone. Rows that changed during the run moved past
   * the upper bound and are missing from their old range too; they must not be marked deleted.
   */
  readonly stillExists: (id: number) => Effect.Effect<boolean, StoreError, StoreClient>
}

const names = (field: DeletionSpec["field"]) =>
  field === "modified" ? { after: "modified_after", before: "modified_before" } : { after: "after", before: "before" }

/**
 * Forced deletions are announced nowhere, so they are found by comparison: the store's X-WP-Total for
 * a date range against the warehouse's count for the same range, bisecting only the ranges that differ
 * and comparing ids once a range fits in a page. With nothing deleted this costs one request per listing.
 */
export const findDeleted = (
  spec: DeletionSpec,
  storeId: string,
  upper: number
): Effect.Effect<ReadonlyArray<number>, StoreError | SqlError, StoreClient | SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const n = names(spec.field)
    const [start] = yield* query<{ at: string | null }>(`${spec.table}_range_start`, [storeId])
    if (!start || start.at === null) return []
    const deleted: number[] = []

    const rangeParams = (a: number, b: number) => ({ [n.after]: toApiGmt(a - 1), [n.before]: toApiGmt(b), dates_are_gmt: true })
    const storeCount = (a: number, b: number) =>
      Effect.forEach(spec.listings, (l) => store.list(spec.path, { ...l, ...rangeParams(a, b), per_page: 1 }), { concurrency: "unbounded" })
        .pipe(Effect.map((pages) => pages.reduce((sum, p) => sum + p.total, 0)))
    const storeIds = (a: number, b: number) =>
      Effect.gen(function*() {
        const ids = new Set<number>()
        for (const l of spec.listings) {
          for (let page = 1; ; page++) {
            const p = yield* store.list(spec.path, { ...l, ...rangeParams(a, b), per_page: store.perPage, page, orderby: "id", order: "asc" })
            for (const doc of p.items) ids.add(Number((doc as { id: unknown }).id))
            if (p.items.length < store.perPage) break
          }
        }
        return ids
      })

    const check = (a: number, b: number): Effect.Effect<void, StoreError | SqlError, StoreClient | SqlClient.SqlClient> =>
      Effect.gen(function*() {
        const [ours] = yield* query<{ n: number }>(`${spec.table}_count_range`, [storeId, a, b])
        const theirs = yield* storeCount(a, b)
        if (theirs === (ours?.n ?? 0)) return
        if (theirs > store.perPage && b - a > 1) {
          const mid = Math.floor((a + b) / 2)
          yield* check(a, mid)
          yield* check(mid, b)
          return
        }
        const present = yield* storeIds(a, b)
        const missing = idsOf(yield* query<{ id: string }>(`${spec.table}_ids_range`, [storeId, a, b])).filter((id) => !present.has(id))
        for (const id of missing) if (!(yield* spec.stillExists(id))) deleted.push(id)
      })

    yield* check(Number(start.at), upper)
    if (deleted.length > 0) yield* query(`${spec.table}_mark_deleted`, [storeId, deleted])
    return deleted
  })
