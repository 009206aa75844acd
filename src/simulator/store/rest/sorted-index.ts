// Arrays of records kept sorted by (key, id), maintained incrementally: a write removes a record before
// changing its key and re-inserts it after, so list queries can binary-search instead of scanning.

export type Keyed = { readonly id: number }

export class SortedIndex<T extends Keyed> {
  items: T[] = []

  constructor(readonly key: (t: T) => number) {}

  reset(all: ReadonlyArray<T>): void {
    this.items = [...all].sort((a, b) => this.key(a) - this.key(b) || a.id - b.id)
  }

  insert(t: T): void {
    const last = this.items[this.items.length - 1]
    const k = this.key(t)
    // Writes mostly stamp "now", which sorts last: append without searching.
    if (last === undefined || this.key(last) < k || (this.key(last) === k && last.id < t.id)) this.items.push(t)
    else this.items.splice(this.position(k, t.id), 0, t)
  }

  remove(t: T): void {
    const i = this.position(this.key(t), t.id)
    if (this.items[i] !== t) throw new Error(`index out of step for record ${t.id}`)
    this.items.splice(i, 1)
  }

  /** One pass instead of a splice per record: for bulk edits of many records. */
  removeAll(records: ReadonlySet<T>): void {
    this.items = this.items.filter((t) => !records.has(t))
  }

  /** First position whose key is >= k. */
  lowerBound(k: number): number {
    return this.position(k, -Infinity)
  }

  /** First position whose key is > k. */
  upperBound(k: number): number {
    return this.position(k, Infinity)
  }

  private position(k: number, id: number): number {
    let lo = 0
    let hi = this.items.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const m = this.items[mid]!
      const mk = this.key(m)
      if (mk < k || (mk === k && m.id < id)) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

export type IndexKey = "id" | "created" | "modified"

/** One set of records (e.g. the non-trashed orders) indexed by id, created and modified date. */
export class IndexFamily<T extends Keyed> {
  readonly by: Record<IndexKey, SortedIndex<T>>

  constructor(keys: { created: (t: T) => number; modified: (t: T) => number }) {
    this.by = {
      id: new SortedIndex<T>((t) => t.id),
      created: new SortedIndex<T>(keys.created),
      modified: new SortedIndex<T>(keys.modified),
    }
  }

  reset(all: ReadonlyArray<T>): void {
    for (const index of Object.values(this.by)) index.reset(all)
  }

  add(t: T): void {
    for (const index of Object.values(this.by)) index.insert(t)
  }

  remove(t: T): void {
    for (const index of Object.values(this.by)) index.remove(t)
  }
}
