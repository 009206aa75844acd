import type { Listed } from "./listing.js"

/** One side's rows by id (the warehouse's live rows have a listed row's shape): a StampTable, or a Map. */
export interface RowsById {
  readonly get: (id: number) => Listed | undefined
  readonly has: (id: number) => boolean
  readonly values: () => Iterable<Listed>
  readonly keys: () => Iterable<number>
}

/** What differs between the store's listing and the warehouse's live rows. */
export interface Differences {
  /** Listed by the store before the upper bound, not live in the warehouse. */
  readonly missing: ReadonlyArray<number>
  /** Listed and live on both sides, with another date or another side of the trash. */
  readonly stale: ReadonlyArray<number>
  /** Live in the warehouse, listed nowhere by the store: gone unless a single GET still finds it. */
  readonly gone: ReadonlyArray<number>
}

const byId = (a: number, b: number) => a - b

/**
 * Compares both sides. A store row dated at or after `upper` belongs to the next sync and is not compared (a
 * row without a date always is); `dates` off compares ids alone (refunds never change). A warehouse row is
 * gone whatever its date: every row of the ids compared is listed, so a row the listings lack is not a later change.
 */
export const compare = (
  store: RowsById,
  warehouse: RowsById,
  upper: number,
  dates = true
): Differences => {
  const missing: number[] = []
  const stale: number[] = []
  for (const row of store.values()) {
    if (row.at !== null && row.at >= upper) continue
    const held = warehouse.get(row.id)
    if (held === undefined) missing.push(row.id)
    else if (dates && (held.at !== row.at || held.trash !== row.trash)) stale.push(row.id)
  }
  const gone = [...warehouse.keys()].filter((id) => !store.has(id))
  return { missing: missing.sort(byId), stale: stale.sort(byId), gone: gone.sort(byId) }
}

/** How many ids a record, a log line and a status keep of each kind: enough to look at, not a dump. */
export const ID_CAP = 100

export const capped = (ids: ReadonlyArray<number>) => ids.slice(0, ID_CAP)
