import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, dailyNetSales, manualClock, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { at, call, emptyShop, simpleProductId } from "./support.ts"

interface SalesReport {
  total_sales: string
  net_sales: string
  average_sales: string
  total_orders: number
  total_items: number
  total_tax: string
  total_shipping: string
  total_refunds: number
  total_discount: string
  totals_grouped_by: string
  totals: Record<string, { sales: string; orders: number; items: number; tax: string; shipping: string; discount: string; customers: number; refunds: string }>
}

const cents = (m: string) => Math.round(Number(m) * 100)

describe("store simulator: sales report against the independent reference", () => {
  const clock = manualClock(at("2024-08-01T12:00:00Z"))
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock, data: { seed: 21, orders: 3000, start: "2024-01-01", days: 200 } })
  })
  afterAll(() => sim.close())

  /** The reference rows of [from, to] (days), all currencies summed, per day. */
  const referenceByDay = (from: string, to: string) => {
    const days = new Map<string, { orders: number; gross: number; refunds: number }>()
    for (const row of dailyNetSales(sim.state)) {
      if (row.day < from || row.day > to) continue
      const d = days.get(row.day) ?? { orders: 0, gross: 0, refunds: 0 }
      d.orders += row.orders_count
      d.gross += cents(row.gross_sales)
      d.refunds += cents(row.refunds)
      days.set(row.day, d)
    }
    return days
  }

  it("per-day sales, orders and refunds equal the reference summed over currencies", async () => {
    const res = await call<SalesReport[]>(sim, "/reports/sales?date_min=2024-03-01&date_max=2024-03-31")
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(1)
    const report = res.body[0]!
    expect(report.totals_grouped_by).toBe("day")
    expect(Object.keys(report.totals)).toHaveLength(31)
    expect(Object.keys(report.totals)[0]).toBe("2024-03-01")
    const expected = referenceByDay("2024-03-01", "2024-03-31")
    let gross = 0
    let refunds = 0
    let orders = 0
    for (const [day, t] of Object.entries(report.totals)) {
      const e = expected.get(day) ?? { orders: 0, gross: 0, refunds: 0 }
      expect({ day, sales: cents(t.sales), orders: t.orders, refunds: cents(t.refunds) }).toEqual({ day, sales: e.gross, orders: e.orders, refunds: e.refunds })
      gross += e.gross
      refunds += e.refunds
      orders += e.orders
    }
    expect(refunds).toBeGreaterThan(0)
    expect(cents(report.total_sales)).toBe(gross)
    expect(cents(report.net_sales)).toBe(gross - refunds)
    expect(cents(report.average_sales)).toBe(Math.round((gross - refunds) / 31))
    expect(report.total_orders).toBe(orders)
    // The March 10 DST change makes that local day 23 hours long; the report still has one bucket for it.
    expect(report.totals["2024-03-10"]).toBeDefined()
  })

  it("groups by month over ranges longer than three months", async () => {
    const report = (await call<SalesReport[]>(sim, "/reports/sales?date_min=2024-01-01&date_max=2024-06-30")).body[0]!
    expect(report.totals_grouped_by).toBe("month")
    expect(Object.keys(report.totals)).toEqual(["2024-01", "2024-02", "2024-03", "2024-04", "2024-05", "2024-06"])
    const expected = referenceByDay("2024-01-01", "2024-06-30")
    for (const [month, t] of Object.entries(report.totals)) {
      const days = [...expected].filter(([day]) => day.startsWith(month))
      expect(cents(t.sales)).toBe(days.reduce((s, [, d]) => s + d.gross, 0))
      expect(cents(t.refunds)).toBe(days.reduce((s, [, d]) => s + d.refunds, 0))
    }
    const threeMonths = (await call<SalesReport[]>(sim, "/reports/sales?date_min=2024-01-01&date_max=2024-03-31")).body[0]!
    expect(threeMonths.totals_grouped_by).toBe("day")
  })

  it("answers periods relative to the simulator clock's local today", async () => {
    const week = (await call<SalesReport[]>(sim, "/reports/sales?period=week")).body[0]!
    expect(Object.keys(week.totals)).toEqual(["2024-07-26", "2024-07-27", "2024-07-28", "2024-07-29", "2024-07-30", "2024-07-31", "2024-08-01"])
    const lastMonth = (await call<SalesReport[]>(sim, "/reports/sales?period=last_month")).body[0]!
    expect(Object.keys(lastMonth.totals)).toHaveLength(31)
    expect(Object.keys(lastMonth.totals)[0]).toBe("2024-07-01")
    const year = (await call<SalesReport[]>(sim, "/reports/sales?period=year")).body[0]!
    expect(year.totals_grouped_by).toBe("month")
    expect(Object.keys(year.totals)).toHaveLength(8)
    const today = (await call<SalesReport[]>(sim, "/reports/sales")).body[0]!
    expect(Object.keys(today.totals)).toEqual(["2024-08-01"])
    expect((await call(sim, "/reports/sales?period=decade")).status).toBe(400)
    expect((await call(sim, "/reports/sales?date_min=2024-13-01")).status).toBe(400)
  })

  it("lists at most 12 top sellers by quantity, as the orders say", async () => {
    const res = await call<Array<{ name: string; title: string; product_id: number; quantity: number }>>(sim, "/reports/top_sellers?date_min=2024-02-01&date_max=2024-04-30")
    expect(res.body.length).toBeLessThanOrEqual(12)
    expect(res.body.length).toBeGreaterThan(0)
    const local = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" })
    const quantities = new Map<number, number>()
    for (const o of sim.state.orders) {
      if (!["completed", "processing", "on-hold"].includes(o.status)) continue
      const day = local.format(new Date(o.created * 1000))
      if (day < "2024-02-01" || day > "2024-04-30") continue
      for (const l of o.line_items) quantities.set(l.productId, (quantities.get(l.productId) ?? 0) + l.quantity)
    }
    const best = [...quantities].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 12)
    expect(res.body.map((e) => [e.product_id, e.quantity])).toEqual(best)
    for (const e of res.body) expect(e.name).toBe(sim.state.products.find((p) => p.id === e.product_id)!.name)
  })

  it("answers the totals reports as [{slug, name, total}]", async () => {
    const orders = (await call<Array<{ slug: string; name: string; total: string }>>(sim, "/reports/orders/totals")).body
    for (const status of ["pending", "processing", "on-hold", "completed", "cancelled", "refunded", "failed"]) {
      const entry = orders.find((e) => e.slug === status)!
      expect(entry.total).toBe(String(sim.state.orders.filter((o) => o.status === status).length))
    }
    const products = (await call<Array<{ slug: string; total: string }>>(sim, "/reports/products/totals")).body
    expect(products.find((e) => e.slug === "variable")!.total).toBe(String(sim.state.products.filter((p) => p.type === "variable").length))
    const customers = (await call<Array<{ slug: string; total: string }>>(sim, "/reports/customers/totals")).body
    expect(customers.map((e) => e.slug)).toEqual(["paying", "non_paying"])
    expect(customers.reduce((s, e) => s + Number(e.total), 0)).toBe(sim.state.customers.length)
    for (const path of ["/reports/coupons/totals", "/reports/reviews/totals"]) {
      for (const e of (await call<Array<Record<string, unknown>>>(sim, path)).body) expect(Object.keys(e)).toEqual(["slug", "name", "total"])
    }
    const index = (await call<Array<{ slug: string }>>(sim, "/reports")).body.map((e) => e.slug)
    expect(index).toEqual(expect.arrayContaining(["sales", "top_sellers", "orders/totals"]))
  })
})

describe("store simulator: per-day refunds vs total_refunds (seed part 2, §2.14)", () => {
  it("counts refunds by their own day per bucket, but the parent's full total for refunded orders", async () => {
    const clock = manualClock(at("2024-07-01T16:00:00Z"))
    const sim = await emptyShop({ clock, timezone: "America/New_York" })
    try {
      const s = sim.state
      const product = simpleProductId(sim)
      const order = (iso: string, status: string, total: string) => {
        clock.set(at(iso))
        return s.createOrder({ status, line_items: [{ product_id: product, total }] })
      }
      const b = order("2024-07-01T16:00:00Z", "completed", "50.00") // before the range
      const a = order("2024-07-10T16:00:00Z", "completed", "100.00") // 12:00 on the 10th
      order("2024-07-10T17:00:00Z", "cancelled", "999.00") // not counted
      const d = order("2024-07-11T15:00:00Z", "completed", "888.00")
      s.trashOrder(d.id) // not counted
      order("2024-07-12T03:59:59Z", "processing", "20.00") // 23:59:59 on the 11th
      order("2024-07-12T04:00:00Z", "processing", "7.00") // 00:00:00 on the 12th, outside

      clock.set(at("2024-07-11T00:00:00Z")) // 20:00 on the 10th
      s.createRefund(a.id, { amount: "30.00" })
      clock.set(at("2024-07-15T12:00:00Z")) // after the range: the rest, so the order becomes "refunded"
      s.createRefund(a.id, { amount: "70.00" })
      clock.set(at("2024-07-11T14:00:00Z")) // in the range, on an order created before it
      s.createRefund(b.id, { amount: "5.00" })

      expect(s.orderById.get(a.id)!.status).toBe("refunded")
      const report = (await call<SalesReport[]>(sim, "/reports/sales?date_min=2024-07-09&date_max=2024-07-11")).body[0]!
      expect(report.totals["2024-07-09"]).toMatchObject({ sales: "0.00", orders: 0, refunds: "0.00" })
      expect(report.totals["2024-07-10"]).toMatchObject({ sales: "100.00", orders: 1, refunds: "30.00" })
      expect(report.totals["2024-07-11"]).toMatchObject({ sales: "20.00", orders: 1, refunds: "5.00" })
      expect(report.total_sales).toBe("120.00")
      expect(report.net_sales).toBe("85.00")
      // 100.00 for the refunded order (its full total, although only 30.00 was refunded in the range) + 5.00 partial.
      expect(report.total_refunds).toBe(105)
      expect(report.total_orders).toBe(2)

      const later = (await call<SalesReport[]>(sim, "/reports/sales?date_min=2024-07-12&date_max=2024-07-20")).body[0]!
      expect(later.totals["2024-07-15"]).toMatchObject({ refunds: "70.00" })
      expect(later.total_refunds).toBe(100)
    } finally {
      await sim.close()
    }
  })
})
