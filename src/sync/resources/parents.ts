import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { LiveRows, type ParentTable } from "../../warehouse/live-rows.js"
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
  readonly count: Effect.Effect<number, SqlError, Needs>
  /** How many parents come after `after` (all when null), and the `n`-th of them (null when fewer). */
  readonly ahead: (after: string | null, n: number) => Effect.Effect<{ readonly count: number; readonly nth: string | null }, SqlError, Needs>
  /** Up to `limit` parents after `after` (from the first when null), none past `through` (when set). */
  readonly page: (after: string | null, limit: number, through: string | null) => Effect.Effect<ReadonlyArray<string>, SqlError, Needs>
  /** Those of `keys` that are live parents. */
  readonly among: (keys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>, SqlError, Needs>
  /** Marks deleted the rows of `table` (the children) whose parent is not live; how many. */
  readonly retireOrphans: (table: string) => Effect.Effect<number, SqlError, Needs>
}

/** The live rows of a sales table: order notes' orders (trashed ones included), customer downloads' customers. */
export const rowParents = (table: ParentTable): Effect.Effect<Parents, never, LiveRows> =>
  Effect.map(LiveRows, (live): Parents => ({
    count: Effect.map(live.parentsAhead(table, null, 1), (a) => a.count),
    ahead: (after, n) => live.parentsAhead(table, after, n),
    page: (after, limit, through) => live.parentsAfter(table, after, limit, through),
    among: (keys) => live.liveParentsAmong(table, keys),
    retireOrphans: (children) => Effect.flatMap(Scopes, (scopes) => scopes.retireOrphansOf(children, `store.${table}`))
  }))

/** Parents held whole: the top-level keys of a resource table (a store's attributes, its shipping zones: a few dozen). */
export const keyParents = (table: string): Effect.Effect<Parents, SqlError, Scopes> =>
  Effect.flatMap(Scopes, (scopes) => scopes.keys(table, [""])).pipe(Effect.map((rows) => {
    const sorted = rows.map((r) => r.key).sort(byKey)
    const live = new Set(sorted)
    const beyond = (after: string | null) => (after === null ? sorted : sorted.filter((key) => byKey(key, after) > 0))
    return {
      count: Effect.succeed(sorted.length),
      ahead: (after, n) => Effect.sync(() => ({ count: beyond(after).length, nth: beyond(after)[n - 1] ?? null })),
      page: (after, limit, through) => Effect.sync(() => beyond(after).filter((key) => through === null || byKey(key, through) <= 0).slice(0, limit)),
      among: (keys) => Effect.sync(() => keys.filter((key) => live.has(key))),
      retireOrphans: (children) => Effect.flatMap(Scopes, (s) => s.retireOrphans(children, sorted))
    } satisfies Parents
  }))
