import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { type KeyRange, LiveRows, type ParentTable } from "../../warehouse/live-rows.js"
import { Scopes } from "../../warehouse/scopes.js"

/** Parent keys in one order everywhere: by number when both are ids, else as text. */
export const byKey = (a: string, b: string) => {
  const [x, y] = [Number(a), Number(b)]
  return Number.isInteger(x) && Number.isInteger(y) ? x - y : a < b ? -1 : a > b ? 1 : 0
}

type Needs = LiveRows | Scopes

/**
 * The live parents of a child resource, as its stream reads them: a page at a time, in key order. A store's orders
 * and customers are read from the warehouse page by page, so a full pass over a million orders never holds their keys.
 */
export interface Parents {
  /** Its changed parents are those the warehouse wrote since a mark the stream leaves (else its stream's, this run). */
  readonly written: boolean
  /**
   * The parents a full pass reads: with `modifiedFrom` (an epoch second), those the store modified since, where the
   * parents have a modified date (orders, customers); every one where they have none.
   */
  readonly count: (modifiedFrom: number | null) => Effect.Effect<number, SqlError, Needs>
  /** How many parents come after `after` (all when null), and the `n`-th of them (null when fewer). */
  readonly ahead: (after: string | null, n: number, modifiedFrom: number | null) => Effect.Effect<{ readonly count: number; readonly nth: string | null }, SqlError, Needs>
  /** Up to `limit` parents after `after` (from the first when null), none past `through` (when set). */
  readonly page: (after: string | null, limit: number, through: string | null, modifiedFrom: number | null) => Effect.Effect<ReadonlyArray<string>, SqlError, Needs>
  /**
   * The parents that changed, but those in `skip`: up to `limit` after `after`, in key order. Rows of a sales table
   * changed when the warehouse wrote them (or, for customers, one of their orders) since `since`, a timestamptz (none
   * when null); a resource's keys changed when its stream changed them this run.
   */
  readonly changed: (since: string | null, skip: KeyRange | null, after: string | null, limit: number) => Effect.Effect<ReadonlyArray<string>, SqlError, Needs>
  readonly countChanged: (since: string | null, skip: KeyRange | null) => Effect.Effect<number, SqlError, Needs>
  /**
   * Marks deleted the rows of `table` (the children) whose parent is not live; how many. With `since` (a timestamptz,
   * where parents are `written` rows), only those whose parent was marked deleted since: the children written since
   * are of parents read live, and a parent deleted meanwhile is stamped at or after the mark the read began at.
   */
  readonly retireOrphans: (table: string, since: string | null) => Effect.Effect<number, SqlError, Needs>
}

/** The live rows of a sales table: order notes' orders (trashed ones included), customer downloads' customers. */
export const rowParents = (table: ParentTable): Effect.Effect<Parents, never, LiveRows> =>
  Effect.map(LiveRows, (live): Parents => ({
    written: true,
    count: (modifiedFrom) => Effect.map(live.parentsAhead(table, null, 1, modifiedFrom), (a) => a.count),
    ahead: (after, n, modifiedFrom) => live.parentsAhead(table, after, n, modifiedFrom),
    page: (after, limit, through, modifiedFrom) => live.parentsAfter(table, after, limit, through, modifiedFrom),
    changed: (since, skip, after, limit) => (since === null ? Effect.succeed([]) : live.changedParents(table, since, skip, after, limit)),
    countChanged: (since, skip) => (since === null ? Effect.succeed(0) : live.countChangedParents(table, since, skip)),
    retireOrphans: (children, since) => Effect.flatMap(Scopes, (scopes) => scopes.retireOrphansOf(children, `store.${table}`, since))
  }))

/** Whether `key` is in `range`. */
export const inRange = (range: KeyRange | null, key: string) =>
  range !== null && (range.after === null || byKey(key, range.after) > 0) && (range.through === null || byKey(key, range.through) <= 0)

/**
 * Parents held whole: the top-level keys of a resource table (a store's attributes, its shipping zones: a few dozen),
 * `changed` those its stream changed this run. The keys are read once, when first needed (a full pass, or keys that
 * changed): a run whose parents did not change reads none; their children's orphans are found by the warehouse.
 */
export const keyParents = <E, R>(table: string, changed: Effect.Effect<Iterable<string | number>, E, R>): Effect.Effect<Parents, E, Scopes | R> =>
  Effect.gen(function*() {
    const scopes = yield* Scopes
    const changedKeys = [...new Set([...(yield* changed)].map(String))]
    const sorted = yield* Effect.cached(Effect.map(scopes.keys(table, [""]), (rows) => rows.map((r) => r.key).sort(byKey)))
    const beyond = (after: string | null) => Effect.map(sorted, (keys) => (after === null ? keys : keys.filter((key) => byKey(key, after) > 0)))
    const changedLive = (skip: KeyRange | null) =>
      changedKeys.length === 0
        ? Effect.succeed([])
        : Effect.map(sorted, (keys) => changedKeys.filter((key) => keys.includes(key) && !inRange(skip, key)).sort(byKey))
    return {
      written: false,
      count: () => Effect.map(sorted, (keys) => keys.length),
      ahead: (after, n) => Effect.map(beyond(after), (keys) => ({ count: keys.length, nth: keys[n - 1] ?? null })),
      page: (after, limit, through) => Effect.map(beyond(after), (keys) => keys.filter((key) => through === null || byKey(key, through) <= 0).slice(0, limit)),
      changed: (_since, skip, after, limit) => Effect.map(changedLive(skip), (keys) => keys.filter((key) => after === null || byKey(key, after) > 0).slice(0, limit)),
      countChanged: (_since, skip) => Effect.map(changedLive(skip), (keys) => keys.length),
      retireOrphans: (children) => scopes.retireOrphanScopes(children, table)
    } satisfies Parents
  })
