// The list pipeline shared by orders, refunds and products: narrow by binary search on the index of the
// sort key when the date filter is on that key (the common sync query: orderby=modified with modified_after),
// otherwise filter the narrowest index and sort. Date bounds are strict, compared in UTC or site-local wall time.
// Rows that tie on the sort key come back in no particular order, as MariaDB gives them: see page().
import type { Rng } from "../../http/prng.ts"
import type { SiteTime } from "../dates.ts"
import type { IndexFamily, IndexKey, Keyed, SortedIndex } from "./sorted-index.ts"

/** Exclusive bounds in naive seconds (see parseFilterDate). */
export interface DateRange {
  after?: number
  before?: number
}

export interface ListPlan<T extends Keyed> {
  families: ReadonlyArray<IndexFamily<T>>
  /** An indexed key, or an ascending comparator: rows it finds equal tie (only id and include never do). */
  sort: IndexKey | ((a: T, b: T) => number)
  desc: boolean
  /** This request's generator, which orders the tied rows of the answer. */
  rng: Rng
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

/** Rows equal on the requested sort key, and the request's generator that orders them. */
export interface Ties<T> {
  same: (a: T, b: T) => boolean
  rng: Rng
}

export interface Window<T> {
  offset: number
  limit: number
  desc: boolean
  /** Absent for total orders (id, include). */
  ties?: Ties<T>
}

/**
 * The window [offset, offset + limit) of rows in ascending order, read from the end for desc. A tie group is
 * shuffled afresh by each request, like MariaDB's LIMIT: pages 1 and 2 may disagree on the order of a group that
 * straddles them, so a client walking pages can miss or repeat rows. Only the sort key's order is promised.
 */
export const page = <T>(rows: { length: number; at(i: number): T }, w: Window<T>): ListResult<T> => {
  const total = rows.length
  const at = (i: number): T => rows.at(w.desc ? total - 1 - i : i)
  const from = Math.min(w.offset, total)
  const to = Math.min(total, w.offset + w.limit)
  if (w.ties === undefined || from === to) return { total, items: read(at, from, to) }
  // Widen to whole tie groups at both edges, so the cut falls inside a shuffled group, not a sorted one.
  const { same } = w.ties
  let lo = from
  while (lo > 0 && same(at(lo - 1), at(from))) lo--
  let hi = to
  while (hi < total && same(at(hi), at(to - 1))) hi++
  return { total, items: shuffleTies(read(at, lo, hi), w.ties).slice(from - lo, to - lo) }
}

const read = <T>(at: (i: number) => T, from: number, to: number): T[] => {
  const items: T[] = []
  for (let i = from; i < to; i++) items.push(at(i))
  return items
}

/** Fisher-Yates within each run of equal rows; the runs themselves keep their order. */
const shuffleTies = <T>(items: T[], { same, rng }: Ties<T>): T[] => {
  let start = 0
  for (let end = 1; end <= items.length; end++) {
    if (end < items.length && same(items[end]!, items[start]!)) continue
    for (let i = end - 1; i > start; i--) {
      const j = rng.int(start, i)
      const t = items[i]!
      items[i] = items[j]!
      items[j] = t
    }
    start = end
  }
  return items
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
    return page(narrow(plan.families[0]!.by[sortKey], sortKey === "id" ? undefined : sortKey), { ...plan, ties: tiesOf(plan) })
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
  return page({ length: rows.length, at: (i) => rows[i]! }, { ...plan, ties: tiesOf(plan) })
}

/** Which rows of the plan tie: equal keys, or equal under the comparator; none when ordering by id. */
const tiesOf = <T extends Keyed>(plan: ListPlan<T>): Ties<T> | undefined => {
  const sort = plan.sort
  if (sort === "id") return undefined
  if (typeof sort === "function") return { same: (a, b) => sort(a, b) === 0, rng: plan.rng }
  const { key } = plan.families[0]!.by[sort]
  return { same: (a, b) => key(a) === key(b), rng: plan.rng }
}

// (key, id): a fixed order before page() shuffles the ties, so one seed gives one answer.
const keyOrder =
  <T extends Keyed>(index: SortedIndex<T>) =>
  (a: T, b: T): number =>
    index.key(a) - index.key(b) || a.id - b.id
