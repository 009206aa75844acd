import { describe, expect, it } from "vitest"
import { compare } from "../../src/sync/reconcile/compare.js"
import type { Listed } from "../../src/sync/reconcile/listing.js"

const rows = (...list: Array<[number, number | null, boolean?]>) => new Map(list.map(([id, at, trash]) => [id, { id, at, trash: trash ?? false } satisfies Listed]))

describe("comparing the store's listing with the warehouse's live rows", () => {
  it("finds missing, stale (date or trash) and gone rows, in id order", () => {
    const store = rows([3, 100], [1, 100], [2, 150], [4, 100, true], [6, null])
    const warehouse = rows([1, 100], [2, 120], [4, 100], [5, 90], [6, null])
    expect(compare(store, warehouse, 1_000)).toEqual({ missing: [3], stale: [2, 4], gone: [5] })
  })

  it("leaves rows dated at or after the upper bound to the next sync, but a warehouse row no listing has is gone whatever its date", () => {
    const store = rows([1, 999], [2, 1_000], [3, 1_500])
    const warehouse = rows([3, 900], [4, 2_000])
    expect(compare(store, warehouse, 1_000)).toEqual({ missing: [1], stale: [], gone: [4] })
  })

  it("compares ids alone when dates are off (refunds never change)", () => {
    expect(compare(rows([1, 100], [2, 100]), rows([1, 50], [3, 50]), 1_000, false)).toEqual({ missing: [2], stale: [], gone: [3] })
  })
})
