// SeenIds answers what a Set of the same ids answers, whatever the order and repetitions they came in and whenever
// it is asked (a scan adds ids after an earlier check too).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { SeenIds } from "../../src/sync/seen-ids.js"

const id = fc.integer({ min: 0, max: 2 ** 40 })

describe("SeenIds", () => {
  it("has exactly the ids added, across growth and checks between additions", () => {
    fc.assert(fc.property(fc.array(fc.array(id, { maxLength: 1500 }), { minLength: 1, maxLength: 4 }), fc.array(id, { maxLength: 50 }), (batches, probes) => {
      const seen = new SeenIds()
      const set = new Set<number>()
      for (const batch of batches) {
        for (const x of batch) {
          seen.add(x)
          set.add(x)
        }
        for (const x of [...probes, ...batch.slice(0, 20)]) expect(seen.has(x)).toBe(set.has(x))
      }
    }), { numRuns: 200 })
  })

  it("answers false when empty", () => {
    expect(new SeenIds().has(0)).toBe(false)
  })
})
