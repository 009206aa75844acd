import { firstAbove, indexOfId } from "../seen-ids.js"
import type { Listed } from "./listing.js"

/**
 * Rows as a reconciliation compares them (id, date, trash) in typed arrays, 17 bytes a row: held as objects in Maps,
 * with the pages and the warehouse's rows they came from, a pass took about half a kilobyte a row (`verify` peaked
 * at 187 MB at 100,000 orders and 299 MB at 300,000). Rows are added in any order; an id added twice keeps the copy
 * added last, as `Map.set` would. Reading sorts them by id, once, when they were not added in id order.
 */
export class StampTable {
  private ids = new Float64Array(256)
  /** NaN: no date. */
  private ats = new Float64Array(256)
  private trash = new Uint8Array(256)
  private length = 0
  private sorted = true

  add(row: Listed): void {
    const last = this.length - 1
    // Rows added in id order (the warehouse's, read by id; a listing's overlapping pages) keep it sorted: no sort.
    if (this.sorted && last >= 0 && this.ids[last] === row.id) return this.put(last, row)
    if (last >= 0 && row.id < this.ids[last]!) this.sorted = false
    if (this.length === this.ids.length) this.resize(this.length * 2)
    this.put(this.length++, row)
  }

  get size(): number {
    this.sort()
    return this.length
  }

  get(id: number): Listed | undefined {
    const i = this.indexOf(id)
    return i < 0 ? undefined : this.row(i)
  }

  has(id: number): boolean {
    return this.indexOf(id) >= 0
  }

  *values(): IterableIterator<Listed> {
    this.sort()
    for (let i = 0; i < this.length; i++) yield this.row(i)
  }

  /** The rows with ids in (after, through], in a table of their own. */
  between(after: number, through: number): StampTable {
    this.sort()
    const table = new StampTable()
    for (let i = firstAbove(this.ids, this.length, after); i < this.length && this.ids[i]! <= through; i++) table.add(this.row(i))
    return table
  }

  *keys(): IterableIterator<number> {
    this.sort()
    for (let i = 0; i < this.length; i++) yield this.ids[i]!
  }

  private put(i: number, row: Listed): void {
    this.ids[i] = row.id
    this.ats[i] = row.at ?? Number.NaN
    this.trash[i] = row.trash ? 1 : 0
  }

  private row(i: number): Listed {
    const at = this.ats[i]!
    return { id: this.ids[i]!, at: Number.isNaN(at) ? null : at, trash: this.trash[i] === 1 }
  }

  private indexOf(id: number): number {
    this.sort()
    return indexOfId(this.ids, this.length, id)
  }

  /** In id order, each id once (its last copy): rows in the order added, sorted stably, then the last of each id kept. */
  private sort(): void {
    if (this.sorted) return
    const order = Array.from({ length: this.length }, (_, i) => i).sort((a, b) => this.ids[a]! - this.ids[b]! || a - b)
    const [ids, ats, trash] = [new Float64Array(Math.max(256, order.length)), new Float64Array(Math.max(256, order.length)), new Uint8Array(Math.max(256, order.length))]
    let n = 0
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!
      if (k + 1 < order.length && this.ids[order[k + 1]!] === this.ids[i]) continue
      ids[n] = this.ids[i]!
      ats[n] = this.ats[i]!
      trash[n] = this.trash[i]!
      n++
    }
    ;[this.ids, this.ats, this.trash, this.length, this.sorted] = [ids, ats, trash, n, true]
  }

  private resize(capacity: number): void {
    const [ids, ats, trash] = [new Float64Array(capacity), new Float64Array(capacity), new Uint8Array(capacity)]
    ids.set(this.ids.subarray(0, this.length))
    ats.set(this.ats.subarray(0, this.length))
    trash.set(this.trash.subarray(0, this.length))
    ;[this.ids, this.ats, this.trash] = [ids, ats, trash]
  }
}
