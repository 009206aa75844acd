import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import { StoreClient, type QueryParams } from "../store-client/client.js"
import type { StoreError } from "../store-client/errors.js"
import { WithId } from "../store-client/schemas.js"
import { type DatedTable, LiveRows } from "../warehouse/live-rows.js"
import type { RunContext } from "./context.js"
import { SyncState } from "./state.js"
import { toApiGmt } from "./time.js"

/** A resource whose deletions are found by comparing counts per date range with the store. */
export interface DeletionSpec {
  readonly table: DatedTable
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
 * and comparing ids once a range fits in a page. `known` is the store's count before `upper` when the
 * listings' heads gave it: equal to the warehouse's, nothing was deleted and no request is made; otherwise
 * the look costs one request per listing with nothing deleted.
 *
 * Counts decide because the walk is complete: every row the store dated before the upper bound is in the
 * warehouse, so the store's rows of a range are a subset of ours, and a subset of equal size is the same set.
 * (Identities are compared in both directions by the reconciliation, which is what proves the walk.)
 *
 * A row changed after the upper bound (a busy store changes orders all the time) has left its old range in the
 * store but not in the warehouse: on a first difference, the rows the store now dates at or after the bound are
 * listed (ids only) and left out of our counts, and the store's counts are asked again after that listing (a row
 * counted before it could have moved since). Dates only grow, so the store's rows of a range stay a subset of ours
 * without the moved ones: a store changing an order a second costs the look a few requests, not a bisection.
 */
export const findDeleted = (
  spec: DeletionSpec,
  upper: number,
  known?: number
): Effect.Effect<ReadonlyArray<number>, StoreError | SqlError, StoreClient | LiveRows> =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const live = yield* LiveRows
    const n = names(spec.field)
    const range = yield* live.liveRange(spec.table, upper)
    if (range.start === null) return []
    const deleted: number[] = []

    const rangeParams = (a: number, b: number) => ({ [n.after]: toApiGmt(a - 1), [n.before]: toApiGmt(b), dates_are_gmt: true })
    const storeCount = (a: number, b: number) =>
      Effect.forEach(spec.listings, (l) => store.list(spec.path, { ...l, ...rangeParams(a, b), per_page: 1 }, Schema.Unknown), { concurrency: "unbounded" })
        .pipe(Effect.map((pages) => pages.reduce((sum, p) => sum + p.total, 0)))
    /** The ids the listings hold with `params` (every page, ids only). */
    const storeIds = (params: QueryParams) =>
      Effect.gen(function*() {
        const ids = new Set<number>()
        for (const l of spec.listings) {
          for (let page = 1; ; page++) {
            const p = yield* store.list(spec.path, { ...l, ...params, per_page: store.perPage, page, orderby: "id", order: "asc", _fields: "id" }, WithId)
            for (const doc of p.items) ids.add(doc.id)
            if (p.items.length < store.perPage) break
          }
        }
        return ids
      })
    const moved = storeIds({ [n.after]: toApiGmt(upper - 1), dates_are_gmt: true })
    /**
     * The rows left out of our counts: by a modified date, none until a first difference, then those the store dates
     * past the bound; a created date never moves.
     */
    let except: ReadonlySet<number> | undefined = spec.field === "modified" ? undefined : new Set()

    /**
     * `given`: the store's count of the range when it is already known (the listings' heads), not asked again;
     * `counted`: ours, likewise.
     */
    const check = (a: number, b: number, given?: number, counted?: number): Effect.Effect<void, StoreError | SqlError, StoreClient> =>
      Effect.gen(function*() {
        const ours = counted ?? (yield* live.countRange(spec.table, a, b, [...(except ?? [])]))
        const theirs = given ?? (yield* storeCount(a, b))
        if (theirs === ours) return
        if (except === undefined) {
          except = yield* moved
          return yield* check(a, b)
        }
        if (theirs > store.perPage && b - a > 1) {
          const mid = Math.floor((a + b) / 2)
          yield* check(a, mid)
          yield* check(mid, b)
          return
        }
        const present = yield* storeIds(rangeParams(a, b))
        const missing = (yield* live.idsInRange(spec.table, a, b)).filter((id) => !present.has(id) && !except!.has(id))
        for (const id of missing) if (!(yield* spec.stillExists(id))) deleted.push(id)
      })

    yield* check(range.start, upper, known, range.count)
    if (deleted.length > 0) yield* live.markDeleted(spec.table, deleted)
    return deleted
  })

/**
 * `findDeleted` when it is due: a backfill always looks, a sync every SHOPSYNC_DELETIONS_HOURS (default 0: every
 * run, which a sync's listing heads make free when nothing was deleted; its time kept under `<table>.deletions`).
 */
export const findDeletedIfDue = (spec: DeletionSpec, ctx: RunContext, known?: number) =>
  Effect.gen(function*() {
    const state = yield* SyncState
    const key = `${spec.table}.deletions`
    if (ctx.mode.kind !== "backfill" && !(yield* state.fullPassDue(key, ctx.deletionsHours, ctx.upper))) return []
    const deleted = yield* findDeleted(spec, ctx.upper, known)
    yield* state.fullPassDone(key, ctx.upper)
    if (deleted.length > 0) yield* Effect.logInfo(`${spec.table}: ${deleted.length} deleted in the store, marked deleted`)
    return deleted
  })
