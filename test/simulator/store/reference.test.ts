import { describe, expect, it } from "vitest"
import { dailyNetSales, manualClock } from "../../../src/simulator/store/index.ts"
import { at, emptyShop, simpleProductId } from "./support.ts"

describe("dailyNetSales (the independent reference)", () => {
  it("follows the definition: counted statuses, local days, refunds on their own day, per currency", async () => {
    const clock = manualClock(at("2024-03-09T12:00:00Z"))
    const sim = await emptyShop({ clock, timezone: "America/New_York" })
    try {
      const s = sim.state
      const product = simpleProductId(sim)
      const order = (iso: string, status: string, total: string, currency = "USD") => {
        clock.set(at(iso))
        return s.createOrder({ status, currency, line_items: [{ product_id: product, total }] })
      }
      // 2024-03-09 local (EST, UTC-5)
      const a = order("2024-03-09T15:00:00Z", "completed", "10.00")
      order("2024-03-09T16:00:00Z", "processing", "20.00", "EUR")
      order("2024-03-10T04:59:59Z", "on-hold", "1.50") // 23:59:59 on the 9th
      order("2024-03-09T18:00:00Z", "pending", "500.00") // not counted
      order("2024-03-09T18:00:01Z", "failed", "500.00") // not counted
      order("2024-03-09T18:00:02Z", "cancelled", "500.00") // not counted
      // 2024-03-10: the DST day; 05:00Z is 00:00 EST, 07:00Z is 03:00 EDT
      order("2024-03-10T05:00:00Z", "completed", "3.00")
      const c = order("2024-03-10T07:30:00Z", "completed", "4.00")
      const trashed = order("2024-03-10T12:00:00Z", "completed", "700.00")
      const deleted = order("2024-03-10T12:00:01Z", "completed", "800.00")

      clock.set(at("2024-03-11T03:59:59Z")) // 23:59:59 EDT on the 10th
      s.createRefund(a.id, { amount: "2.25" })
      clock.set(at("2024-03-11T04:00:00Z")) // 00:00 on the 11th
      s.createRefund(c.id, { amount: "4.00" }) // full: c becomes "refunded", still counted
      s.createRefund(trashed.id, { amount: "1.00" })
      s.createRefund(deleted.id, { amount: "1.00" })
      s.trashOrder(trashed.id)
      s.forceDeleteOrder(deleted.id)

      expect(dailyNetSales(s)).toEqual([
        { day: "2024-03-09", currency: "EUR", orders_count: 1, gross_sales: "20.00", refunds: "0.00", net_sales: "20.00" },
        { day: "2024-03-09", currency: "USD", orders_count: 2, gross_sales: "11.50", refunds: "0.00", net_sales: "11.50" },
        { day: "2024-03-10", currency: "USD", orders_count: 2, gross_sales: "7.00", refunds: "2.25", net_sales: "4.75" },
        { day: "2024-03-11", currency: "USD", orders_count: 0, gross_sales: "0.00", refunds: "4.00", net_sales: "-4.00" },
      ])
    } finally {
      await sim.close()
    }
  })
})
