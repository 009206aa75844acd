import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { COUNTED, localDay, ms } from "../support/scenarios.js"

const TZ = "America/New_York"

interface Reconciliation {
  day: string
  warehouse_orders: number
  report_orders: number | null
  differs: boolean
  note: string
}

describe("reconciliation of the warehouse's daily figures with the store's own sales report", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, timezone: TZ, data: { seed: 71, orders: 150, start: "2026-03-01", days: 60 } })
    await h.sync()
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
  afterAll(() => h.close())

  const reconciliation = async () =>
    new Map((await h.rows<Reconciliation>(
      `SELECT day::text AS day, warehouse_orders, report_orders, differs, note
       FROM analytics.sales_report_reconciliation WHERE store_id = $1 ORDER BY day`, [STORE_ID])).map((r) => [r.day, r]))

  /** Days with figures and how many currencies they hold, from the simulator's reference computation. */
  const referenceDays = () => {
    const days = new Map<string, Set<string>>()
    for (const r of h.expectedNetSales()) days.set(String(r.day), (days.get(String(r.day)) ?? new Set()).add(String(r.currency)))
    return days
  }
  const orderDays = () => {
    const days = h.sim.state.orders.map((o) => localDay(o.created, TZ)).sort()
    return { first: days[0]!, last: days[days.length - 1]! }
  }

  it("after a full sync, every single-currency day with orders in the synced range matches the store's report", async () => {
    const rec = await reconciliation()
    const { first, last } = orderDays()
    const single = [...referenceDays()].filter(([day, cur]) => cur.size === 1 && day >= first && day <= last).map(([day]) => day)
    expect(single.length).toBeGreaterThan(5)
    expect(single.filter((d) => rec.get(d)?.differs !== false).map((d) => [d, rec.get(d)?.note])).toEqual([])
    expect(single.every((d) => rec.get(d)?.note === "matches")).toBe(true)
  })

  it("after a full sync, every day with figures (refund-only days after the last order included) has the store's report", async () => {
    const rec = await reconciliation()
    const single = [...referenceDays()].filter(([, cur]) => cur.size === 1).map(([day]) => day)
    const { last } = orderDays()
    expect(single.some((d) => d > last)).toBe(true)
    expect(single.filter((d) => rec.get(d)?.report_orders === null || rec.get(d)?.differs !== false).map((d) => [d, rec.get(d)?.note])).toEqual([])
  })

  it("a day with sales in several currencies matches (both sides add them up) and its note says so", async () => {
    const rec = await reconciliation()
    const { first, last } = orderDays()
    const multi = [...referenceDays()].filter(([day, cur]) => cur.size > 1 && day >= first && day <= last).map(([day]) => day)
    expect(multi.length).toBeGreaterThan(0)
    expect(multi.map((d) => [d, rec.get(d)?.differs, rec.get(d)?.note]))
      .toEqual(multi.map((d) => [d, false, "matches; both sides add several currencies as plain numbers (daily_net_sales has them apart)"]))
  })

  it("a change synced without the reports stream flags its day; syncing reports makes it match again", async () => {
    const state = h.sim.state
    const { first, last } = orderDays()
    const days = referenceDays()
    const before = await reconciliation()
    const order = state.orders.find((o) => {
      const day = localDay(o.created, TZ)
      return o.status === "completed" && o.refundIds.length === 0 && day >= first && day <= last && days.get(day)?.size === 1 &&
        before.get(day)?.differs === false
    })!
    const day = localDay(order.created, TZ)
    expect(COUNTED.has(order.status)).toBe(true)

    clock.advance(60_000)
    state.updateOrder(order.id, { status: "cancelled" })
    clock.advance(2_000)
    await h.sync({ streams: ["orders", "refunds"] })
    expect(await h.netSales()).toEqual(h.expectedNetSales())
    const stale = (await reconciliation()).get(day)!
    expect(stale.differs).toBe(true)
    expect(stale.warehouse_orders).toBe(Number(stale.report_orders) - 1)
    expect(stale.note).toMatch(/^order counts differ/)

    clock.advance(2_000)
    await h.sync({ streams: ["reports"] })
    const fresh = (await reconciliation()).get(day)!
    expect([fresh.differs, fresh.note]).toEqual([false, "matches"])
  })

  it("cancelling an order whose refund is on another day: a normal sync refreshes the store's report for both days", async () => {
    const state = h.sim.state
    const { first, last } = orderDays()
    const days = referenceDays()
    const before = await reconciliation()
    const inRange = (day: string) => day >= first && day <= last && days.get(day)?.size === 1 && before.get(day)?.differs === false
    const order = state.orders.find((o) => {
      if (!COUNTED.has(o.status) || o.refundIds.length !== 1) return false
      const refundDay = localDay(state.refundById.get(o.refundIds[0]!)!.created, TZ)
      return refundDay !== localDay(o.created, TZ) && inRange(refundDay) && inRange(localDay(o.created, TZ))
    })
    expect(order).toBeDefined()
    const orderDay = localDay(order!.created, TZ)
    const refundDay = localDay(state.refundById.get(order!.refundIds[0]!)!.created, TZ)

    clock.advance(60_000)
    state.updateOrder(order!.id, { status: "cancelled" })
    clock.advance(2_000)
    await h.sync()
    expect(await h.netSales()).toEqual(h.expectedNetSales())
    const rec = await reconciliation()
    // The refund's day may have had nothing else: then neither side has figures for it any more.
    expect([orderDay, refundDay].map((d) => [d, rec.get(d)?.differs, rec.get(d)?.note?.replace("no sales on either side", "matches")])).toEqual([
      [orderDay, false, "matches"],
      [refundDay, false, "matches"]
    ])
  })
})
