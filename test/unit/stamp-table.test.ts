// A StampTable answers what a Map of the same rows answers (an id added twice keeps its last copy), its rows in id
// order, whatever the order they were added in and however reads and additions interleave; a range of ids likewise.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Listed } from "../../src/sync/reconcile/listing.js"
import { StampTable } from "../../src/sync/reconcile/stamp-table.js"

const row = fc.record({
  id: fc.integer({ min: 1, max: 400 }),
  at: fc.option(fc.integer({ min: 0, max: 2 ** 33 }), { nil: null }),
  trash: fc.boolean()
})

describe("StampTable", () => {
  // Batches in any order, or in id order (ids repeated) as the warehouse's rows and a listing's overlapping pages come.
  const batch = fc.oneof(fc.array(row, { maxLength: 700 }), fc.array(row, { maxLength: 700 }).map((rows) => rows.sort((a, b) => a.id - b.id)))

  it("holds what a Map holds, sorted by id", () => {
    fc.assert(fc.property(fc.array(batch, { minLength: 1, maxLength: 3 }), fc.integer({ min: -1, max: 401 }), fc.integer({ min: -1, max: 401 }), (batches, a, b) => {
      const table = new StampTable()
      const map = new Map<number, Listed>()
      for (const batch of batches) {
        for (const r of batch) {
          table.add(r)
          map.set(r.id, r)
        }
        const sorted = [...map.values()].sort((a, b) => a.id - b.id)
        expect([...table.values()]).toEqual(sorted)
        expect([...table.keys()]).toEqual(sorted.map((r) => r.id))
        expect(table.size).toBe(map.size)
        // A range's rows, the range's edges included (ids run 1–400: -1 and 401 are beyond both ends).
        const [after, through] = [Math.min(a, b), Math.max(a, b)]
        expect([...table.between(after, through).values()]).toEqual(sorted.filter((r) => r.id > after && r.id <= through))
        for (const id of [0, 1, 200, 400, 401, ...batch.slice(0, 10).map((r) => r.id)]) {
          expect(table.get(id)).toEqual(map.get(id))
          expect(table.has(id)).toBe(map.has(id))
        }
      }
    }), { numRuns: 150 })
  })
})
