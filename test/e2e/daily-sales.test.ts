import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { cents, COUNTED, fetchAll, money } from "../support/api.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"

/**
 * analytics.daily_sales and analytics.marketing_contacts against figures computed here from the documents the
 * store API serves (not from the warehouse): every number a consumer reads has an independent expectation.
 */
describe("the detail views agree with the store's own documents", () => {
  let h: Harness
  let orders: Array<Record<string, any>>
  let refunds: Array<Record<string, any>>
  beforeAll(async () => {
    h = await makeHarness({ clock: manualClock(Date.parse("2026-09-01T00:00:00Z")), data: { seed: 23, orders: 700, start: "2026-02-01", days: 60 } })
    await h.sync()
    orders = (await fetchAll(h.sim.url, "/orders", { status: "any" })).filter((o) => COUNTED.has(o.status))
    refunds = await fetchAll(h.sim.url, "/refunds")
  })
  afterAll(() => h.close())

  it("daily_sales: items, discounts, shipping, tax and refunds_count per local day and currency", async () => {
    const expected = new Map<string, { orders_count: number; items: number; gross: number; discounts: number; shipping: number; tax: number; refunds_count: number; refunds: number }>()
    const row = (day: string, currency: string) => {
      const key = `${day} ${currency}`
      if (!expected.has(key)) expected.set(key, { orders_count: 0, items: 0, gross: 0, discounts: 0, shipping: 0, tax: 0, refunds_count: 0, refunds: 0 })
      return expected.get(key)!
    }
    const byId = new Map(orders.map((o) => [o.id, o]))
    for (const o of orders) {
      const r = row(o.date_created.slice(0, 10), o.currency)
      r.orders_count += 1
      r.items += o.line_items.reduce((n: number, l: any) => n + l.quantity, 0)
      r.gross += cents(o.total)
      r.discounts += cents(o.discount_total)
      r.shipping += cents(o.shipping_total)
      r.tax += cents(o.total_tax)
    }
    for (const refund of refunds) {
      const order = byId.get(refund.parent_id)
      if (!order) continue
      const r = row(refund.date_created.slice(0, 10), order.currency)
      r.refunds_count += 1
      r.refunds += cents(refund.amount)
    }
    const actual = await h.rows<Record<string, string | number>>(
      `SELECT day::text || ' ' || currency AS key, orders_count, items::int AS items, gross_sales::text, discounts::text, shipping::text,
              tax::text, refunds_count, refunds::text, net_sales::text
       FROM analytics.daily_sales WHERE store_id = $1 ORDER BY day, currency`, [STORE_ID])
    expect(actual.length).toBe(expected.size)
    for (const a of actual) {
      const e = expected.get(String(a.key))!
      expect([a.key, a.orders_count, a.items, cents(String(a.gross_sales)), cents(String(a.discounts)), cents(String(a.shipping)), cents(String(a.tax)), a.refunds_count, cents(String(a.refunds)), cents(String(a.net_sales))])
        .toEqual([a.key, e.orders_count, e.items, e.gross, e.discounts, e.shipping, e.tax, e.refunds_count, e.refunds, e.gross - e.refunds])
    }
  })

  it("marketing_contacts: per email, the counted orders billed to it, their days, spend and refunds", async () => {
    const byEmail = new Map<string, Array<Record<string, any>>>()
    for (const o of orders) {
      const email = String(o.billing?.email ?? "").trim().toLowerCase()
      if (email === "") continue
      byEmail.set(email, [...(byEmail.get(email) ?? []), o])
    }
    const refundsOf = new Map<number, number>()
    for (const r of refunds) refundsOf.set(r.parent_id, (refundsOf.get(r.parent_id) ?? 0) + cents(r.amount))
    const expected = [...byEmail.entries()].map(([email, list]) => {
      const latest = [...list].sort((a, b) => b.date_created_gmt.localeCompare(a.date_created_gmt) || b.id - a.id)[0]!
      const sameCurrency = list.filter((o) => o.currency === latest.currency)
      const days = list.map((o) => o.date_created.slice(0, 10)).sort()
      return {
        email,
        orders_count: list.length,
        first: days[0],
        last: days[days.length - 1],
        currency: latest.currency,
        spent: money(sameCurrency.reduce((n, o) => n + cents(o.total), 0)),
        refunded: money(sameCurrency.reduce((n, o) => n + (refundsOf.get(o.id) ?? 0), 0)),
        repeat: list.length >= 2
      }
    }).sort((a, b) => a.email.localeCompare(b.email))
    const actual = await h.rows<Record<string, unknown>>(
      `SELECT email, orders_count, first_order_day::text AS first, last_order_day::text AS last, currency,
              to_char(total_spent, 'FM999999990.00') AS spent, to_char(refunded_total, 'FM999999990.00') AS refunded,
              'repeat-buyer' = ANY(tags) AS repeat
       FROM analytics.marketing_contacts WHERE store_id = $1 AND orders_count > 0 ORDER BY email COLLATE "C"`, [STORE_ID])
    expect(actual).toEqual(expected.sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0)))
  })
})
