import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { ms } from "../support/scenarios.js"

// America/New_York in 2026: clocks spring forward on 2026-03-08 at 02:00 EST (07:00Z) and fall back on
// 2026-11-01 at 02:00 EDT (06:00Z). Every expected day below was worked out by hand from those two instants.
const clock = manualClock(ms("2026-03-01T12:00:00Z"))

type Status = "completed" | "processing" | "on-hold" | "cancelled"
interface PlannedOrder { key: string; at: string; amount: string; status: Status; currency?: string; day: string }
interface PlannedRefund { order: string; at: string; amount: string; day: string }

const ORDERS: PlannedOrder[] = [
  { key: "A", at: "2026-03-08T04:59:59Z", amount: "1.00", status: "completed", day: "2026-03-07" }, // 23:59:59 EST
  { key: "B", at: "2026-03-08T05:00:00Z", amount: "2.00", status: "completed", day: "2026-03-08" }, // 00:00:00 EST
  { key: "C", at: "2026-03-08T06:59:59Z", amount: "4.00", status: "processing", day: "2026-03-08" }, // 01:59:59 EST
  { key: "D", at: "2026-03-08T07:00:00Z", amount: "8.00", status: "on-hold", day: "2026-03-08" }, // 03:00:00 EDT
  { key: "E", at: "2026-03-09T03:59:59Z", amount: "16.00", status: "completed", day: "2026-03-08" }, // 23:59:59 EDT
  { key: "F", at: "2026-03-09T04:00:00Z", amount: "32.00", status: "completed", day: "2026-03-09" }, // 00:00:00 EDT
  { key: "G", at: "2026-03-09T04:30:00Z", amount: "64.00", status: "cancelled", day: "2026-03-09" }, // not counted
  { key: "H", at: "2026-11-01T03:59:59Z", amount: "10.00", status: "completed", day: "2026-10-31" }, // 23:59:59 EDT
  { key: "I", at: "2026-11-01T04:00:00Z", amount: "20.00", status: "completed", day: "2026-11-01" }, // 00:00:00 EDT
  { key: "J", at: "2026-11-01T05:30:00Z", amount: "40.00", status: "completed", day: "2026-11-01" }, // 01:30 EDT (first)
  { key: "K", at: "2026-11-01T06:30:00Z", amount: "80.00", status: "processing", day: "2026-11-01" }, // 01:30 EST (second)
  { key: "O", at: "2026-11-01T12:00:00Z", amount: "7.77", status: "completed", currency: "EUR", day: "2026-11-01" },
  { key: "L", at: "2026-11-02T04:30:00Z", amount: "0.25", status: "completed", day: "2026-11-01" }, // 23:30 EST (00:30 if EDT were assumed)
  { key: "M", at: "2026-11-02T04:59:59Z", amount: "0.05", status: "completed", day: "2026-11-01" }, // 23:59:59 EST
  { key: "N", at: "2026-11-02T05:00:00Z", amount: "100.00", status: "completed", day: "2026-11-02" } // 00:00:00 EST
]

const REFUNDS: PlannedRefund[] = [
  { order: "D", at: "2026-03-11T03:59:59Z", amount: "3.00", day: "2026-03-10" }, // 23:59:59 EDT, two days after its order
  { order: "E", at: "2026-03-11T04:00:00Z", amount: "1.50", day: "2026-03-11" }, // 00:00:00 EDT
  { order: "H", at: "2026-11-01T05:59:59Z", amount: "2.50", day: "2026-11-01" }, // 01:59:59 EDT, the day after its order
  { order: "J", at: "2026-11-03T04:59:59Z", amount: "5.00", day: "2026-11-02" } // 23:59:59 EST
]

// Hand-computed daily_net_sales.
const EXPECTED = [
  { day: "2026-03-07", currency: "USD", orders_count: 1, gross_sales: "1.00", refunds: "0.00", net_sales: "1.00" },
  { day: "2026-03-08", currency: "USD", orders_count: 4, gross_sales: "30.00", refunds: "0.00", net_sales: "30.00" },
  { day: "2026-03-09", currency: "USD", orders_count: 1, gross_sales: "32.00", refunds: "0.00", net_sales: "32.00" },
  { day: "2026-03-10", currency: "USD", orders_count: 0, gross_sales: "0.00", refunds: "3.00", net_sales: "-3.00" },
  { day: "2026-03-11", currency: "USD", orders_count: 0, gross_sales: "0.00", refunds: "1.50", net_sales: "-1.50" },
  { day: "2026-10-31", currency: "USD", orders_count: 1, gross_sales: "10.00", refunds: "0.00", net_sales: "10.00" },
  { day: "2026-11-01", currency: "EUR", orders_count: 1, gross_sales: "7.77", refunds: "0.00", net_sales: "7.77" },
  { day: "2026-11-01", currency: "USD", orders_count: 5, gross_sales: "140.30", refunds: "2.50", net_sales: "137.80" },
  { day: "2026-11-02", currency: "USD", orders_count: 1, gross_sales: "100.00", refunds: "5.00", net_sales: "95.00" }
]

describe("local-day bucketing across midnight and DST changes (America/New_York)", () => {
  let h: Harness
  const ids = new Map<string, number>()
  const refundIds: Array<{ id: number; day: string }> = []

  beforeAll(async () => {
    // No generated orders: only the ones below, so every figure is known.
    h = await makeHarness({ clock, timezone: "America/New_York", data: { seed: 61, orders: 0, start: "2026-01-01", days: 30 } })
    const state = h.sim.state
    const product = state.products[0]!.id
    const events = [
      ...ORDERS.map((o) => ({ at: o.at, run: () => {
        const line = { product_id: product, quantity: 1, subtotal: o.amount, total: o.amount }
        ids.set(o.key, state.createOrder({ status: o.status, currency: o.currency ?? "USD", line_items: [line] }).id)
      } })),
      ...REFUNDS.map((r) => ({ at: r.at, run: () => {
        refundIds.push({ id: state.createRefund(ids.get(r.order)!, { amount: r.amount }).id, day: r.day })
      } }))
    ].sort((a, b) => ms(a.at) - ms(b.at))
    for (const e of events) {
      clock.set(ms(e.at))
      e.run()
    }
    clock.set(ms("2026-11-10T12:00:00Z"))
    await h.sync()
  })
  afterAll(() => h.close())

  it("each order's created_day is its local calendar day", async () => {
    const rows = await h.rows<{ id: number; day: string }>("SELECT id::int AS id, created_day::text AS day FROM store.orders WHERE store_id = $1", [STORE_ID])
    const byId = new Map(rows.map((r) => [r.id, r.day]))
    expect(ORDERS.map((o) => [o.key, byId.get(ids.get(o.key)!)])).toEqual(ORDERS.map((o) => [o.key, o.day]))
  })

  it("each refund is bucketed on its own local day, not its order's", async () => {
    const rows = await h.rows<{ id: number; day: string }>("SELECT id::int AS id, created_day::text AS day FROM store.refunds WHERE store_id = $1", [STORE_ID])
    const byId = new Map(rows.map((r) => [r.id, r.day]))
    expect(refundIds.map((r) => byId.get(r.id))).toEqual(refundIds.map((r) => r.day))
  })

  it("daily_net_sales equals the hand-computed figures (and the simulator's reference agrees)", async () => {
    expect(h.expectedNetSales()).toEqual(EXPECTED)
    expect(await h.netSales()).toEqual(EXPECTED)
  })
})
