/**
 * The integer ids a scan saw, 8 bytes each: a full scan of a store's customers holds every id it saw until it
 * compares them with the warehouse's, and a Set of 200,000 numbers took several times that (with the warehouse's ids
 * read whole beside it, 45 MB of peak RSS at 200,000 customers). Sorted when asked after ids came out of order.
 */
export class SeenIds {
  private ids = new Float64Array(1024)
  private size = 0
  private sorted = true

  add(id: number): void {
    if (this.size === this.ids.length) {
      const grown = new Float64Array(this.ids.length * 2)
      grown.set(this.ids)
      this.ids = grown
    }
    if (this.size > 0 && id < this.ids[this.size - 1]!) this.sorted = false
    this.ids[this.size++] = id
  }

  has(id: number): boolean {
    if (!this.sorted) {
      this.ids.subarray(0, this.size).sort()
      this.sorted = true
    }
    return indexOfId(this.ids, this.size, id) >= 0
  }
}

/** The first index among the first `length` of `ids` (sorted ascending) whose id is above `id` (`length` when none). */
export const firstAbove = (ids: Float64Array, length: number, id: number): number => {
  let [low, high] = [0, length]
  while (low < high) {
    const middle = (low + high) >>> 1
    if (ids[middle]! <= id) low = middle + 1
    else high = middle
  }
  return low
}

/** Where `id` is among the first `length` of `ids` (sorted ascending), or -1. */
export const indexOfId = (ids: Float64Array, length: number, id: number): number => {
  const i = firstAbove(ids, length, id) - 1
  return i >= 0 && ids[i] === id ? i : -1
}
