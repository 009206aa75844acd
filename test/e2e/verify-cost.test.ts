// The cost of a reconciliation pass at a given size of store, run by hand (skipped in the suite: a 100,000-order
// sync takes minutes): SHOPSYNC_VERIFY_COST=100000 npx vitest run test/e2e/verify-cost.test.ts
// A full sync loads the simulator's store, then a clean pass is timed and its requests counted per resource.
import { describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { RESOURCES } from "../../src/sync/reconcile/resources.js"
import { runVerify } from "../../src/sync/reconcile/verify.js"
import { makeHarness } from "../support/harness.js"

const size = process.env.SHOPSYNC_VERIFY_COST ?? ""
const orders = size === "default" ? undefined : Number(size)

describe.skipIf(size === "")("the cost of a reconciliation pass", () => {
  it(`at ${orders ?? "the default number of"} orders`, { timeout: 3_600_000 }, async () => {
    const clock = manualClock(Date.parse("2026-07-01T12:00:00Z"))
    const h = await makeHarness({ clock, ...(orders === undefined ? {} : { data: { seed: 1, orders } }) }, { concurrency: 16 })
    try {
      let t0 = performance.now()
      await h.sync()
      const synced = (performance.now() - t0) / 1000
      clock.advance(2_000)
      const before = await h.requests()
      t0 = performance.now()
      const report = await h.run(runVerify({ resources: RESOURCES, repair: true, waitForLock: false }))
      const seconds = (performance.now() - t0) / 1000
      const lines = report!.resources.map((r) =>
        `${r.resource.padEnd(10)} listed ${String(r.listed).padStart(7)}  drift ${r.missing.length + r.stale.length + r.gone.length}  requests ${String(r.requests).padStart(5)}  ${r.seconds.toFixed(2)} s`)
      console.log([`sync of ${orders ?? "default"} orders: ${synced.toFixed(1)} s`, ...lines, `verify: ${(await h.requests()) - before} requests in ${seconds.toFixed(1)} s`].join("\n"))
      expect(report!.resources.every((r) => r.missing.length + r.stale.length + r.gone.length === 0)).toBe(true)
    } finally {
      await h.close()
    }
  })
})
