// The list pipeline shared by orders, refunds and products: narrow by binary search on the index of the
// sort key when the date filter is on that key (the common sync query: orderby=modified with modified_after),
// otherwise filter the narrowest index and sort. Date bounds are strict, compared in UTC or site-local wall time.
import type { SiteTime } from "../dates.ts"
import type { IndexFamily, IndexKey, Keyed, SortedIndex } from "./sorted-index.ts"

/** Exclusive bounds in naive seconds (see parseFilterDate). */
export interface DateRange {
  after?: number
  before?: number
}

export interface ListPlan<T extends Keyed> {
  families: ReadonlyArray<IndexFamily<T>>
  /** An indexed key, or an ascending comparator that already breaks ties by id. */
  sort: IndexKey | ((a: T, b: T) => number)
  desc: boolean
  created?: DateRange
  modified?: DateRange
  /** Compare date bounds with the site-local wall clock (dates_are_gmt=false) rather than UTC. */
  local: boolean
  predicate?: (t: T) => boolean
  offset: number
  limit: number
}

export interface ListResult<T> {
  total: number
  items: T[]
}

/** head ++ items[from, to) ++ tail, where head and tail are the already-filtered uncertain edges. */
class Segments<T> {
  constructor(
    private readonly head: T[],
    private readonly items: T[],
    private readonly from: number,
    private readonly to: number,
    private readonly tail: T[],
  ) {}

  get length(): number {
    return this.head.length + (this.to - this.from) + this.tail.length
  }

  at(i: number): T {
    if (i < this.head.length) return this.head[i]!
    const j = i - this.head.length
    return j < this.to - this.from ? this.items[this.from + j]! : this.tail[j - (this.to - this.from)]!
  }
}

/** The window [offset, offset + limit) of rows in ascending order, read from the end for desc. */
export const page = <T>(rows: { length: number; at(i: number): T }, plan: { offset: number; limit: number; desc: boolean }): ListResult<T> => {
  const total = rows.length
  const items: T[] = []
  for (let i = plan.offset; i < Math.min(total, plan.offset + plan.limit); i++) items.push(rows.at(plan.desc ? total - 1 - i : i))
  return { total, items }
}

/** Whether an instant (epoch seconds) lies strictly inside the range, read on the local or the GMT clock. */
export const within =
  (range: DateRange | undefined, local: boolean, site: SiteTime) =>
  (utc: number): boolean => {
    if (range === undefined) return true
    const c = local ? site.wall(utc) : utc
    return (range.after === undefined || c > range.after) && (range.before === undefined || c < range.before)
  }

export const runList = <T extends Keyed>(plan: ListPlan<T>, site: SiteTime): ListResult<T> => {
  const { min, max } = plan.local ? site.offsetBounds() : { min: 0, max: 0 }
  const ranges = (["created", "modified"] as const).filter((k) => plan[k] !== undefined)
  const inRange = { created: within(plan.created, plan.local, site), modified: within(plan.modified, plan.local, site) }

  // Local wall time is UTC shifted by an offset within [min, max]: the bounds map to a certain middle of the
  // UTC-sorted index, with at most (max - min) seconds of rows at each edge needing an exact check.
  const narrow = (index: SortedIndex<T>, key: "created" | "modified" | undefined): Segments<T> => {
    const n = index.items.length
    const r = key === undefined ? undefined : plan[key]
    if (key === undefined || r === undefined) return new Segments([], index.items, 0, n, [])
    const a = r.after === undefined ? 0 : index.upperBound(r.after - max)
    const b = r.after === undefined ? 0 : index.upperBound(r.after - min)
    const c = r.before === undefined ? n : index.lowerBound(r.before - max)
    const d = r.before === undefined ? n : index.lowerBound(r.before - min)
    const exact = (from: number, to: number) => index.items.slice(from, to).filter((t) => inRange[key](index.key(t)))
    if (d <= a) return new Segments([], index.items, 0, 0, [])
    if (b >= c) return new Segments(exact(a, d), index.items, 0, 0, [])
    return new Segments(exact(a, b), index.items, b, c, exact(c, d))
  }

  const sortKey = typeof plan.sort === "string" ? plan.sort : undefined
  if (plan.families.length === 1 && sortKey !== undefined && plan.predicate === undefined && ranges.every((k) => k === sortKey)) {
    return page(narrow(plan.families[0]!.by[sortKey], sortKey === "id" ? undefined : sortKey), plan)
  }

  const driver: IndexKey = ranges.includes("modified") ? "modified" : ranges.includes("created") ? "created" : (sortKey ?? "id")
  const rows: T[] = []
  for (const family of plan.families) {
    const seg = narrow(family.by[driver], driver === "id" ? undefined : driver)
    for (let i = 0; i < seg.length; i++) {
      const t = seg.at(i)
      if (ranges.every((k) => k === driver || inRange[k](family.by[k].key(t))) && (plan.predicate?.(t) ?? true)) rows.push(t)
    }
  }
  if (plan.families.length > 1 || driver !== sortKey) {
    const compare = typeof plan.sort === "function" ? plan.sort : keyOrder(plan.families[0]!.by[plan.sort])
    rows.sort(compare)
  }
  return page({ length: rows.length, at: (i) => rows[i]! }, plan)
}

const keyOrder =
  <T extends Keyed>(index: SortedIndex<T>) =>
  (a: T, b: T): number =>
    index.key(a) - index.key(b) || a.id - b.id
