import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { at, call } from "./support.ts"

const OPTIONS = { seed: 17, orders: 4000, start: "2024-01-01", days: 366, burstSize: 250, bursts: 2 }

describe("store simulator: generated data", () => {
  const clock = manualClock(at("2025-02-01T00:00:00Z"))
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock, data: OPTIONS })
  })
  afterAll(() => sim.close())

  it("is deterministic: the same options give byte-identical answers, another seed does not", async () => {
    const twin = await startStoreSimulator({ clock, data: { ...OPTIONS }, port: 0 })
    const other = await startStoreSimulator({ clock, data: { ...OPTIONS, seed: 18 } })
    try {
      for (const path of ["/orders?per_page=100&page=7", "/refunds?per_page=50&page=2", "/customers?per_page=100", "/products?per_page=30", "/reports/sales?date_min=2024-05-01&date_max=2024-05-31"]) {
        // Links carry each server's own port: compare the bodies with the origin taken out.
        const text = async (s: StoreSimulator) => (await call(s, path)).text.replaceAll(new URL(s.url).origin, "")
        const a = await text(sim)
        expect(a.length, path).toBeGreaterThan(100)
        expect(await text(twin), path).toBe(a)
        expect(await text(other), path).not.toBe(a)
      }
    } finally {
      await twin.close()
      await other.close()
    }
  })

  it("has bulk edits: burstSize orders sharing one date_modified second, which a strict cursor must not split", async () => {
    const bySecond = new Map<number, number>()
    for (const o of sim.state.orders) bySecond.set(o.modified, (bySecond.get(o.modified) ?? 0) + 1)
    const bursts = [...bySecond].filter(([, n]) => n >= 250).map(([second]) => second)
    expect(bursts).toHaveLength(2)
    const second = bursts[0]!
    const iso = new Date(second * 1000).toISOString().slice(0, 19)
    const before = new Date((second - 1) * 1000).toISOString().slice(0, 19)
    const q = (after: string) => `/orders?orderby=modified&order=asc&dates_are_gmt=true&per_page=100&modified_after=${after}&modified_before=${iso.slice(0, 10)}T23:59:59`
    const including = await call<Array<{ date_modified_gmt: string }>>(sim, q(before))
    expect(including.body.every((o) => o.date_modified_gmt === iso)).toBe(true)
    expect(Number(including.headers.get("x-wp-total"))).toBeGreaterThanOrEqual(250)
    const excluding = await call<Array<{ date_modified_gmt: string }>>(sim, q(iso))
    expect(excluding.body.some((o) => o.date_modified_gmt === iso)).toBe(false)
    expect(Number(including.headers.get("x-wp-total")) - Number(excluding.headers.get("x-wp-total"))).toBe(bySecond.get(second))
  })

  it("looks like a real shop: statuses, currencies, guests, lines, refunds", () => {
    const orders = sim.state.orders
    const share = (test: (o: (typeof orders)[number]) => boolean) => orders.filter(test).length / orders.length
    const statuses = new Set(orders.map((o) => o.status))
    for (const s of ["completed", "processing", "on-hold", "pending", "cancelled", "refunded", "failed", "trash"]) expect(statuses, s).toContain(s)
    expect(share((o) => o.status === "completed" || o.status === "processing")).toBeGreaterThan(0.55)
    expect(share((o) => o.status === "trash")).toBeLessThan(0.02)
    expect(share((o) => o.currency === "USD")).toBeGreaterThan(0.6)
    expect(share((o) => o.currency === "EUR")).toBeGreaterThan(0.03)
    expect(share((o) => o.currency === "GBP")).toBeGreaterThan(0.03)
    expect(share((o) => o.customerId === 0)).toBeGreaterThan(0.12)
    expect(share((o) => o.customerId === 0)).toBeLessThan(0.3)
    const lines = orders.map((o) => o.line_items.length)
    expect(Math.min(...lines)).toBe(1)
    expect(Math.max(...lines)).toBe(5)
    expect(lines.reduce((a, b) => a + b, 0) / lines.length).toBeGreaterThan(2.7)
    expect(lines.reduce((a, b) => a + b, 0) / lines.length).toBeLessThan(3.3)
    expect(share((o) => o.fees !== null)).toBeGreaterThan(0.01)
    expect(share((o) => o.coupon >= 0)).toBeGreaterThan(0.05)
    expect(share((o) => o.shipMethod >= 0)).toBeGreaterThan(0.7)
    expect(share((o) => o.refundIds.length > 0)).toBeGreaterThan(0.1)
    expect(share((o) => o.refundIds.length > 0)).toBeLessThan(0.2)
    expect(orders.some((o) => o.refundIds.length >= 2)).toBe(true)
    expect(orders.every((o) => o.modified >= o.created)).toBe(true)
    expect(sim.state.products.some((p) => p.type === "variable" && p.variationIds.length > 1)).toBe(true)
    expect(orders.some((o) => o.line_items.some((l) => l.variationId > 0))).toBe(true)
  })

  it("dates orders around local midnight and DST changes, and refunds on other local days", () => {
    const local = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" })
    const show = (t: number) => local.format(new Date(t * 1000)) // "2024-03-10, 23:59"
    const orders = sim.state.orders
    expect(orders.filter((o) => / 23:5[89]$| 00:0[01]$/.test(show(o.created))).length).toBeGreaterThan(40)
    const dst = [at("2024-03-10T07:00:00Z") / 1000, at("2024-11-03T06:00:00Z") / 1000]
    expect(orders.filter((o) => dst.some((t) => Math.abs(o.created - t) <= 3 * 3600)).length).toBeGreaterThan(10)
    let otherDay = 0
    let nearMidnight = 0
    for (const r of sim.state.refunds) {
      const order = sim.state.orderById.get(r.orderId)!
      if (show(r.created).slice(0, 10) !== show(order.created).slice(0, 10)) otherDay++
      if (/ 23:5[89]$| 00:0[01]$/.test(show(r.created))) nearMidnight++
      expect(r.created).toBeGreaterThan(order.created)
    }
    expect(otherDay).toBeGreaterThan(sim.state.refunds.length / 2)
    expect(nearMidnight).toBeGreaterThan(5)
  })

  it("gives refunds and orders ids in creation order, refunds after their order", () => {
    const refunds = sim.state.refunds
    for (const r of refunds) expect(r.id).toBeGreaterThan(r.orderId)
    const orders = sim.state.orders.sort((a, b) => a.id - b.id)
    for (let i = 1; i < orders.length; i++) expect(orders[i]!.created).toBeGreaterThanOrEqual(orders[i - 1]!.created)
  })

  it("keeps refund amounts within their order's total", () => {
    for (const o of sim.state.orders) {
      const refunded = o.refundIds.reduce((s, id) => s + sim.state.refundById.get(id)!.amount, 0)
      expect(refunded).toBeLessThanOrEqual(o.total)
      if (o.status === "refunded") expect(refunded).toBe(o.total)
    }
  })

})
