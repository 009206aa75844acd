// A cron run every few minutes must cost the store next to nothing: the sales streams ask for what changed,
// the other resources wait for their refresh interval, and forced deletions are looked for on every run for free.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { CATALOGUE, STREAMS } from "../../src/sync/catalogue.js"
import { type Harness, makeHarness } from "../support/harness.js"

const ms = (iso: string) => Date.parse(iso)
const MINUTE = 60_000
/** A plain `sync` with the defaults: nothing named, customers fully scanned daily, deletions looked for every run. */
const plain = { streams: STREAMS, named: false, customersFullScanHours: 24, deletionsHours: 0 } as const
const withInterval = (predicate: (every: number) => boolean) =>
  STREAMS.filter((name) => !CATALOGUE[name].sales && predicate(CATALOGUE[name].every)).sort()

describe("the cost of staying current", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 3, orders: 300, start: "2026-04-01", days: 30 } })
    await h.sync(plain)
  })
  afterAll(() => h.close())

  it("a no-change sync asks for the store's clock, each listing's head (orders, orders' trash, refunds, products, products' trash) and the newest customers; the heads' counts settle deletions", async () => {
    clock.advance(5 * MINUTE)
    const before = await h.requests()
    const summary = await h.sync(plain)
    expect((await h.requests()) - before).toBe(1 + 5 + 1)
    const looked = await h.rows<{ stream: string }>("SELECT stream FROM sync.state WHERE stream LIKE '%.deletions' ORDER BY stream")
    expect(looked.map((r) => r.stream)).toEqual(["orders.deletions", "products.deletions", "refunds.deletions"])
    expect(summary!.streams.filter((s) => s.skipped !== undefined).map((s) => s.stream).sort()).toEqual(withInterval((every) => every > 0))
    expect(summary!.streams.filter((s) => s.rows > 0 || s.error !== undefined)).toEqual([])
  })

  it("an hour later the hourly resources run again, the daily ones wait; a named stream always runs", async () => {
    clock.advance(61 * MINUTE)
    const summary = await h.sync(plain)
    expect(summary!.streams.filter((s) => s.skipped !== undefined).map((s) => s.stream).sort()).toEqual(withInterval((every) => every > 1))

    const named = await h.sync({ ...plain, streams: ["orders", "settings"], named: true })
    expect(named!.streams.find((s) => s.stream === "settings")?.skipped).toBeUndefined()
  })

  it("SHOPSYNC_REFRESH_HOURS overrides a stream's interval", async () => {
    clock.advance(5 * MINUTE)
    const summary = await h.sync({ ...plain, refreshHours: { webhooks: 0 } })
    expect(summary!.streams.find((s) => s.stream === "webhooks")?.skipped).toBeUndefined()
    expect(summary!.streams.find((s) => s.stream === "tax_rates")?.skipped).toMatch(/not due/)
  })

  it("a forced deletion is found by the next sync with the defaults; with SHOPSYNC_DELETIONS_HOURS=1, once an hour has passed", async () => {
    const deleted = async (id: number) =>
      (await h.rows<{ deleted: boolean }>("SELECT deleted_at IS NOT NULL AS deleted FROM store.orders WHERE id = $1", [id]))[0]?.deleted
    const [first, second] = h.sim.state.orders.filter((o) => o.status === "completed")
    h.sim.state.forceDeleteOrder(first!.id)
    clock.advance(5 * MINUTE)
    await h.sync(plain)
    expect(await deleted(first!.id)).toBe(true)
    expect(await h.netSales()).toEqual(h.expectedNetSales())

    h.sim.state.forceDeleteOrder(second!.id)
    clock.advance(5 * MINUTE)
    await h.sync({ ...plain, deletionsHours: 1 })
    expect(await deleted(second!.id)).toBe(false)
    clock.advance(61 * MINUTE)
    await h.sync({ ...plain, deletionsHours: 1 })
    expect(await deleted(second!.id)).toBe(true)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})

describe("a first sync", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 5, orders: 300, start: "2026-04-01", days: 30 } })
  })
  afterAll(() => h.close())

  /** Requests for a listing's newest row (order=desc, one row): what a head costs. */
  // The listings' heads; the newest customer, asked for alone too, is not one (customers have no modified filter).
  const headQueries = () => h.sim.requests.map((r) => new URL(r.url, "http://x").searchParams)
    .filter((q, i) => q.get("order") === "desc" && q.get("per_page") === "1" && !h.sim.requests[i]!.url.includes("/customers?"))
  const heads = () => headQueries().length

  it("asks no listing for its head (a walk from nothing counts the same rows on its first page), and later syncs settle deletions with the heads", async () => {
    await h.sync(plain)
    expect(heads()).toBe(0)
    expect(await h.netSales()).toEqual(h.expectedNetSales())

    const gone = h.sim.state.orders.find((o) => o.status === "completed")!
    h.sim.state.forceDeleteOrder(gone.id)
    clock.advance(5 * MINUTE)
    const before = await h.requests()
    await h.sync(plain)
    // Orders, their trash, refunds, products; the products' trash is empty, so it has no cursor and is walked (one
    // empty page) instead.
    expect(h.sim.state.products.filter((p) => p.status === "trash")).toEqual([])
    expect(heads()).toBe(4)
    // Each asks for the newest row's id and date only: a real shop encodes kilobytes of JSON for a whole order.
    expect(headQueries().map((q) => q.get("_fields"))).toEqual(expect.arrayContaining(["id,date_modified_gmt", "id,date_created_gmt"]))
    expect(headQueries().every((q) => /^id,date_(modified|created)_gmt$/.test(q.get("_fields") ?? ""))).toBe(true)
    // Beyond the clock, the heads, the empty walk and the newest customer: the orders' count differs, so the check asks.
    expect((await h.requests()) - before).toBeGreaterThan(7)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})
