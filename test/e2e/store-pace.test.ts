import { describe, expect, it } from "vitest"
import { manualClock, type ThrottleOptions } from "../../src/simulator/store/index.js"
import { makeHarness } from "../support/harness.js"
import { expectOrdersMatchStore, expectRefundsMatchStore, ms, runStatuses } from "../support/scenarios.js"

const TZ = "America/New_York"
const data = { seed: 61, orders: 600, customers: 120, start: "2026-03-01", days: 60 }
const STREAMS = ["orders", "refunds", "products", "customers", "reports"]

/** A full sync with the default pace (STORE_CONCURRENCY's default ceiling, adaptive) against a throttled store. */
const syncAgainst = async (
  throttle: ThrottleOptions,
  check: (h: Awaited<ReturnType<typeof makeHarness>>) => void | Promise<void>,
  store: { orders: number; customers: number } = data
) => {
  const h = await makeHarness({ clock: manualClock(ms("2026-07-01T12:00:00Z")), timezone: TZ, data: { ...data, ...store }, throttle }, {
    perPage: 20,
    concurrency: 16
  })
  try {
    const summary = await h.sync()
    expect(summary?.streams.map((s) => [s.stream, s.error])).toEqual(STREAMS.map((s) => [s, undefined]))
    await expectOrdersMatchStore(h)
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
    expect((await runStatuses(h)).map((r) => r.status)).toEqual(["succeeded"])
    await check(h)
  } finally {
    await h.close()
  }
}

describe("the store client finds the pace the store sustains", () => {
  it.each(["ratelimit", "x-ratelimit"] as const)("a host allowing 10 requests/s (burst 20, %s headers): every row, few 429s", async (headers) => {
    await syncAgainst({ rateLimit: { rps: 10, burst: 20, headers } }, (h) => {
      const refused = h.sim.requests.filter((r) => r.status === 429).length
      // Over twice the burst: the rate, not the burst, let most of them through (a first sync asks no heads: 60).
      expect(h.sim.requests.length).toBeGreaterThan(40)
      expect(refused).toBeLessThan(h.sim.requests.length * 0.1)
    })
  })

  it("a host answering a bare 429 with Retry-After (no quota headers): every row still loads", async () => {
    await syncAgainst({ rateLimit: { rps: 20, burst: 10, headers: "none" } }, (h) => {
      expect(h.sim.requests.filter((r) => r.status === 429).length).toBeGreaterThan(0)
    })
  })

  it("a store slowing down past 4 requests in flight: the client settles near 4", async () => {
    // 100 ms a request, 100 ms more per request beyond 4: 4 in flight is the fastest (40 requests/s, 8 only 16). Enough
    // orders that the walk is cut into 16 slices: the sync asks for more than 4 at once.
    await syncAgainst({ latency: { baseMs: 100, knee: 4, perExtraMs: 100 } }, (h) => {
      const seen = h.sim.inFlightAtArrival
      expect(seen.length).toBeGreaterThan(60)
      // The sync asks for less at the start and as walks end: the busiest tenth of the run shows where the limit sat.
      // A client that does not back off sits at its ceiling of 16. Only the upper side is checked here: a loaded
      // machine's own delays read as the store's and lower the limit, while a lower bound (the old 3–7 band) could
      // fail from load. Load once raised it too (16 in one CI run): a new kind of request first met behind a queue,
      // or one kind's fast answers hiding another's slow ones, vouched for more (concurrency-control.ts now guards
      // both). Where the limit settles (near the knee, 3.5–5 in flight) is test/unit/adaptive-limit.test.ts's, on the
      // TestClock, where no wall-clock delay enters. Beside three busy loops on two cores, slow start's first doubling
      // to 16 (on answers sent before the queue formed) put the p90 at 8–10 in 6 of 11 runs before the change that
      // stopped probing kinds met once, and in 5 of 15 after: 10 is the bound, still well below the ceiling of 16.
      const p90 = [...seen].sort((a, b) => a - b)[Math.floor(seen.length * 0.9)]!
      expect(p90).toBeLessThanOrEqual(10)
    }, { orders: 2400, customers: 100 })
  })
})
