import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option } from "effect"

/** The stream whose freshness is watched: the sales data; every sync runs it. */
export const WATCHED_STREAM = "orders"

export type Freshness = "current" | "stale"

/**
 * The alert a new look at a store's freshness calls for, given the last look (undefined: the first in this process):
 * `stale` when it stops being current (or is not current at the first look), `recovered` when it is current again,
 * nothing while it stays as it was. A first look that finds it current says nothing: there is nothing to resolve.
 */
export const transition = (before: Freshness | undefined, now: Freshness): "stale" | "recovered" | undefined =>
  now === "stale" ? (before === "stale" ? undefined : "stale") : before === "stale" ? "recovered" : undefined

export interface FreshnessLook {
  readonly freshness: Freshness
  /** ISO 8601 UTC; null when the stream never succeeded. */
  readonly lastSuccessAt: string | null
}

/**
 * The store's orders stream as `analytics.freshness` sees it (None: no run has started it yet). `windowMs` replaces
 * the view's rule for a store whose interval the view cannot know (serve's SHOPSYNC_SYNC_EVERY: the view only knows
 * the registry's): current while the last success is at most that old, the rule the view applies to registered stores.
 */
export const lookAtFreshness = (storeId: string, windowMs: Option.Option<number>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const window = Option.getOrNull(windowMs)
    const rows = yield* sql<{ current: boolean; last_success_at: string | null }>`
      SELECT CASE WHEN ${window}::float8 IS NULL THEN is_current
                  ELSE coalesce(last_success_at >= now() - make_interval(secs => ${window}::float8 / 1000), false) END AS current,
             to_char(last_success_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS last_success_at
      FROM analytics.freshness WHERE store_id = ${storeId} AND stream = ${WATCHED_STREAM}`
    return Option.map(Option.fromNullable(rows[0]), (row): FreshnessLook => ({
      freshness: row.current ? "current" : "stale",
      lastSuccessAt: row.last_success_at
    }))
  })
