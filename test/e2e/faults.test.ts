import { Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FaultRule, manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { expectOrdersMatchStore, expectRefundsMatchStore, failedSync, ms, runStatuses, streamState } from "../support/scenarios.js"

const TZ = "America/New_York"
const data = { seed: 51, orders: 300, start: "2026-03-01", days: 60 }

/**
 * The status the simulator logs for a request a fault answered (0: the connection was dropped). Faults are
 * transient, as the hosting's are: a request is hit at most 3 times in a row, and the client tries 6 times.
 * (Without that bound, 0.3⁶ per request makes a failed request likely somewhere among a sync's hundreds.)
 */
const CASES: ReadonlyArray<{ rule: FaultRule; status: number | undefined }> = [
  { rule: { kind: "429", retryAfterSeconds: 1, probability: 0.2, maxInARow: 3, seed: 1 }, status: 429 },
  { rule: { kind: "500", probability: 0.3, maxInARow: 3, seed: 2 }, status: 500 },
  { rule: { kind: "502", probability: 0.3, maxInARow: 3, seed: 3 }, status: 502 },
  { rule: { kind: "503", probability: 0.3, maxInARow: 3, seed: 4 }, status: 503 },
  { rule: { kind: "html5xx", probability: 0.3, maxInARow: 3, seed: 5 }, status: 502 },
  { rule: { kind: "empty5xx", probability: 0.3, maxInARow: 3, seed: 6 }, status: 503 },
  { rule: { kind: "drop", probability: 0.25, maxInARow: 3, seed: 7 }, status: 0 },
  { rule: { kind: "latency", probability: 0.3, latencyMs: 200, seed: 8 }, status: undefined }
]

describe("transient faults of the hosting in front of the store", () => {
  it.each(CASES)("a full sync under $rule.kind faults completes and matches the reference", async ({ rule, status }) => {
    const clock = manualClock(ms("2026-07-01T12:00:00Z"))
    const h = await makeHarness({ clock, timezone: TZ, data, faults: [rule] })
    try {
      const summary = await h.sync()
      expect(summary?.streams.map((s) => [s.stream, s.error])).toEqual(
        ["orders", "refunds", "products", "customers", "reports"].map((s) => [s, undefined]))
      if (status !== undefined) expect(h.sim.requests.filter((r) => r.status === status).length).toBeGreaterThan(0)
      await expectOrdersMatchStore(h)
      await expectRefundsMatchStore(h)
      expect(await h.netSales()).toEqual(h.expectedNetSales())
      expect((await runStatuses(h)).map((r) => r.status)).toEqual(["succeeded"])
    } finally {
      await h.close()
    }
  })
})

describe("a stream that keeps failing", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, timezone: TZ, data, faults: [{ kind: "503", pathPrefix: "/refunds" }] })
  })
  afterAll(() => h.close())

  it("fails the run naming the stream, the URL (no credentials) and the status; the other streams are loaded and checkpointed", async () => {
    const error = await failedSync(h.sync())
    expect(error).toMatch(/refunds: /)
    expect(error).toContain("503")
    expect(error).toContain(`${h.sim.url}/refunds`)
    expect(error).not.toMatch(/ck_demo|cs_demo/)

    await expectOrdersMatchStore(h)
    const [counts] = await h.rows<Record<string, number>>(`SELECT
      (SELECT count(*)::int FROM store.refunds WHERE store_id = $1) AS refunds,
      (SELECT count(*)::int FROM store.customers WHERE store_id = $1 AND deleted_at IS NULL) AS customers,
      (SELECT count(*)::int FROM store.products WHERE store_id = $1 AND deleted_at IS NULL) AS products`, [STORE_ID])
    expect(counts).toEqual({ refunds: 0, customers: h.sim.state.customers.length, products: h.sim.state.products.length })

    const state = new Map((await streamState(h)).map((s) => [s.stream, s]))
    expect(state.get("orders")?.cursor_at).not.toBeNull()
    expect(state.get("orders")?.last_error).toBeNull()
    expect(state.get("products")?.cursor_at).not.toBeNull()
    expect(state.get("products")?.last_error).toBeNull()
    expect(state.get("customers")?.details.lastFullPass).toBeDefined()
    expect(state.get("refunds")?.cursor_at ?? null).toBeNull()
    expect(state.get("refunds")?.last_error).toMatch(/503/)
    expect(state.get("refunds")?.last_error).toContain("/refunds")

    const runs = await runStatuses(h)
    expect(runs.map((r) => r.status)).toEqual(["failed"])
    expect(runs[0]!.error).toMatch(/refunds: .*503/)
  })

  it("once the fault clears, the next sync succeeds and converges", async () => {
    h.sim.setFaults([])
    clock.advance(10_000)
    const summary = await h.sync()
    expect(summary?.streams.every((s) => s.error === undefined)).toBe(true)
    await expectOrdersMatchStore(h)
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
    expect((await runStatuses(h)).map((r) => r.status)).toEqual(["failed", "succeeded"])
    expect((await streamState(h)).find((s) => s.stream === "refunds")?.last_error).toBeNull()
  })
})

describe("wrong credentials", () => {
  it("a wrong consumer secret fails with a message pointing at STORE_CONSUMER_KEY, never showing the secret", async () => {
    const secret = "cs_wrong_S3cret_value"
    const h = await makeHarness(
      { clock: manualClock(ms("2026-07-01T12:00:00Z")), timezone: TZ, data: { seed: 52, orders: 50, start: "2026-03-01", days: 30 } },
      { consumerSecret: Redacted.make(secret) }
    )
    try {
      const error = await failedSync(h.sync())
      expect(error).toContain("STORE_CONSUMER_KEY")
      expect(error).toContain("401")
      expect(error).not.toContain(secret)
      expect(error).not.toContain("cs_demo")
      // It failed before anything was loaded, and the run says why (what `status` shows in the morning).
      expect(await h.rows("SELECT 1 FROM store.orders")).toEqual([])
      const runs = await runStatuses(h)
      expect(runs.map((r) => r.status)).toEqual(["failed"])
      expect(runs[0]!.error).toContain("401")
      expect(runs[0]!.error).not.toContain(secret)
    } finally {
      await h.close()
    }
  })
})
