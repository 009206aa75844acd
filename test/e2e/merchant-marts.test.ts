// The marts merchants ask for (products, customers, cohorts, status history) against figures computed here from the
// documents the store API serves, never from the warehouse: every number has an independent expectation.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { call } from "../simulator/store/support.js"
import { cents, COUNTED, fetchAll } from "../support/api.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { productSales } from "../support/product-sales.js"
import { ms } from "../support/scenarios.js"

type Doc = Record<string, any>

const send = async (h: Harness, method: string, path: string, json?: unknown): Promise<Doc> => {
  const answer = await call(h.sim, path, { method, ...(json === undefined ? {} : { json }) })
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`)
  return answer.body as Doc
}

const allOrders = async (h: Harness) =>
  [...await fetchAll(h.sim.url, "/orders", { status: "any" }), ...await fetchAll(h.sim.url, "/orders", { status: "trash" })]

const email = (value: unknown) => String(value ?? "").trim().toLowerCase()

/** Adds `n` to a numeric field of the row under `key`, creating it from `empty`. */
const tally = <R extends Record<string, any>>(map: Map<string, R>, key: string, empty: () => R) => {
  if (!map.has(key)) map.set(key, empty())
  return map.get(key)!
}

describe("the merchants' marts agree with the store's own documents", () => {
  const clock = manualClock(ms("2026-09-01T00:00:00Z"))
  let h: Harness
  let orders: Array<Doc>
  let refunds: Array<Doc>
  let customers: Array<Doc>
  let seen: Map<number, Array<{ status: string; modified: string }>>
  let mergedGuest: { orderId: number; customerId: number }
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 37, orders: 600, start: "2026-03-10", days: 120 } })
    // A guest order billed to a registered customer's email (in other case): it belongs to that customer.
    const customer = (await fetchAll(h.sim.url, "/customers", { role: "all" })).find((c) => c.email)!
    const product = (await fetchAll(h.sim.url, "/products", { type: "simple" }))[0]!
    const guest = await send(h, "POST", "/orders", {
      status: "completed", customer_id: 0, set_paid: true,
      billing: { email: ` ${String(customer.email).toUpperCase()}`, country: customer.billing?.country || "US" },
      line_items: [{ product_id: product.id, quantity: 2 }]
    })
    mergedGuest = { orderId: guest.id, customerId: customer.id }
    // A run reads what the store dated before its clock's current second.
    clock.advance(60_000)
    seen = new Map()
    const record = (docs: Array<Doc>) => {
      for (const o of docs) {
        const list = seen.get(o.id) ?? []
        if (list.at(-1)?.status !== o.status) list.push({ status: o.status, modified: `${o.date_modified_gmt}Z` })
        seen.set(o.id, list)
      }
    }
    await h.sync()
    record(await allOrders(h))
    // Statuses change between two runs: completed, cancelled, trashed, and one back from trash.
    clock.advance(3_600_000)
    const first = (status: string) => h.sim.state.orders.find((o) => o.status === status && o.id !== guest.id)!.id
    const [processing, onHold, completed, trashed] = ["processing", "on-hold", "completed", "trash"].map(first)
    await send(h, "PUT", `/orders/${processing}`, { status: "completed" })
    await send(h, "PUT", `/orders/${onHold}`, { status: "cancelled" })
    await send(h, "DELETE", `/orders/${completed}`)
    await send(h, "PUT", `/orders/${trashed}`, { status: "processing" })
    clock.advance(60_000)
    await h.sync()
    const now = await allOrders(h)
    record(now)
    orders = now.filter((o) => COUNTED.has(o.status))
    const counted = new Set(orders.map((o) => o.id))
    refunds = (await fetchAll(h.sim.url, "/refunds")).filter((r) => counted.has(r.parent_id))
    customers = await fetchAll(h.sim.url, "/customers", { role: "all" })
  })
  afterAll(() => h?.close())

  it("order_status_history: every status each order was seen in by the two runs, with its document's date_modified", async () => {
    const expected = [...seen.entries()].flatMap(([id, list]) =>
      list.map((s, i) => ({ order: id, position: i + 1, status: s.status, previous: i === 0 ? null : list[i - 1]!.status, modified: s.modified, current: i === list.length - 1 })))
      .sort((a, b) => a.order - b.order || a.position - b.position)
    expect(expected.filter((e) => e.position > 1)).toHaveLength(4)
    const actual = await h.rows(
      `SELECT order_id::int AS order, position::int, status, previous_status AS previous,
              to_char(modified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS modified, is_current AS current
       FROM analytics.order_status_history WHERE store_id = $1 ORDER BY order_id, position`, [STORE_ID])
    expect(actual).toEqual(expected)
  })

  it("daily_product_sales: per local day, currency, product and variation, units and line totals sold and refunded", async () => {
    const names = new Map((await fetchAll(h.sim.url, "/products")).map((p) => [p.id, p.name]))
    const expected = productSales(orders, refunds)
    expect([...expected.values()].some((r) => r.refundedQuantity > 0 && r.quantity === 0)).toBe(true)
    const actual = await h.rows<Doc>(
      `SELECT day::text || ' ' || currency || ' ' || product_id || ' ' || variation_id AS key, product_name, orders_count,
              quantity::int, gross::text, refunded_quantity::int, refunded::text, net::text
       FROM analytics.daily_product_sales WHERE store_id = $1`, [STORE_ID])
    expect(actual.map((a) => a.key).sort()).toEqual([...expected.keys()].sort())
    for (const a of actual) {
      const e = expected.get(a.key)!
      const product = Number(String(a.key).split(" ")[2])
      expect([a.key, a.product_name, a.orders_count, a.quantity, cents(a.gross), a.refunded_quantity, cents(a.refunded), cents(a.net)])
        .toEqual([a.key, names.get(product) ?? null, e.orders.size, e.quantity, e.gross, e.refundedQuantity, e.refunded, e.gross - e.refunded])
    }
  })

  /** Who each counted order belongs to: its customer, else the registered customer billed, else its billing email. */
  const owners = () => {
    const registered = new Map<string, number>()
    for (const c of [...customers].sort((a, b) => a.id - b.id)) if (email(c.email) && !registered.has(email(c.email))) registered.set(email(c.email), c.id)
    return orders.flatMap((o) => {
      const id = o.customer_id !== 0 ? o.customer_id : registered.get(email(o.billing?.email))
      if (id === undefined && email(o.billing?.email) === "") return []
      return [{ order: o, key: id === undefined ? `guest:${email(o.billing?.email)}` : `customer:${id}`, customerId: id ?? null }]
    })
  }
  const refundsOf = () => {
    const sums = new Map<number, number>()
    for (const r of refunds) sums.set(r.parent_id, (sums.get(r.parent_id) ?? 0) + cents(r.amount))
    return sums
  }

  it("customers_ltv: per customer and currency, counted orders, revenue net of their refunds, first and last days", async () => {
    const refunded = refundsOf()
    const emails = new Map(customers.map((c) => [c.id, email(c.email)]))
    const expected = new Map<string, Doc>()
    const latest = new Map<string, Doc>()
    for (const { order: o, key, customerId } of owners()) {
      const r = tally(expected, `${key} ${o.currency}`, () => ({ customerId, orders: 0, gross: 0, refunds: 0, days: [] as string[] }))
      r.orders += 1
      r.gross += cents(o.total)
      r.refunds += refunded.get(o.id) ?? 0
      r.days.push(o.date_created.slice(0, 10))
      const before = latest.get(key)
      if (!before || o.date_created_gmt > before.date_created_gmt || (o.date_created_gmt === before.date_created_gmt && o.id > before.id)) latest.set(key, o)
    }
    const actual = await h.rows<Doc>(
      `SELECT customer_key || ' ' || currency AS key, customer_id::int, email, is_registered, orders_count, gross_revenue::text,
              refunds::text, net_revenue::text, first_order_day::text AS first, last_order_day::text AS last
       FROM analytics.customers_ltv WHERE store_id = $1`, [STORE_ID])
    expect(actual.map((a) => a.key).sort()).toEqual([...expected.keys()].sort())
    for (const a of actual) {
      const e = expected.get(a.key)!
      const key = String(a.key).split(" ")[0]!
      const days = [...e.days].sort()
      expect([a.key, a.customer_id, a.email, a.is_registered, a.orders_count, cents(a.gross_revenue), cents(a.refunds), cents(a.net_revenue), a.first, a.last])
        .toEqual([a.key, e.customerId, (e.customerId !== null && emails.get(e.customerId)) || email(latest.get(key)!.billing?.email),
          e.customerId !== null, e.orders, e.gross, e.refunds, e.gross - e.refunds, days[0], days.at(-1)])
    }
    // The guest order billed to a registered customer's email counts for that customer.
    const [merged] = await h.rows<{ customer_key: string }>(
      "SELECT customer_key FROM analytics.customer_orders WHERE store_id = $1 AND order_id = $2", [STORE_ID, mergedGuest.orderId])
    expect(merged).toEqual({ customer_key: `customer:${mergedGuest.customerId}` })
  })

  it("customer_cohorts: customers by the month of their first order, and per month since, orders and revenue", async () => {
    const refunded = refundsOf()
    const owned = owners()
    const firstMonth = new Map<string, string>()
    for (const { order: o, key } of owned) {
      const month = o.date_created.slice(0, 7)
      if (!firstMonth.has(key) || month < firstMonth.get(key)!) firstMonth.set(key, month)
    }
    const size = new Map<string, number>()
    for (const month of firstMonth.values()) size.set(month, (size.get(month) ?? 0) + 1)
    const expected = new Map<string, { customers: Set<string>; orders: number; gross: number; refunds: number }>()
    for (const { order: o, key } of owned) {
      const r = tally(expected, `${firstMonth.get(key)}-01 ${o.date_created.slice(0, 7)}-01 ${o.currency}`,
        () => ({ customers: new Set<string>(), orders: 0, gross: 0, refunds: 0 }))
      r.customers.add(key)
      r.orders += 1
      r.gross += cents(o.total)
      r.refunds += refunded.get(o.id) ?? 0
    }
    expect(new Set([...expected.keys()].map((k) => k.split(" ")[1])).size).toBeGreaterThan(3)
    const actual = await h.rows<Doc>(
      `SELECT cohort_month::text || ' ' || month::text || ' ' || currency AS key, months_since, cohort_customers, active_customers,
              orders_count, gross_revenue::text, refunds::text, net_revenue::text
       FROM analytics.customer_cohorts WHERE store_id = $1`, [STORE_ID])
    expect(actual.map((a) => a.key).sort()).toEqual([...expected.keys()].sort())
    for (const a of actual) {
      const e = expected.get(a.key)!
      const [cohort, month] = String(a.key).split(" ") as [string, string]
      const since = (Number(month.slice(0, 4)) - Number(cohort.slice(0, 4))) * 12 + Number(month.slice(5, 7)) - Number(cohort.slice(5, 7))
      expect([a.key, a.months_since, a.cohort_customers, a.active_customers, a.orders_count, cents(a.gross_revenue), cents(a.refunds), cents(a.net_revenue)])
        .toEqual([a.key, since, size.get(cohort.slice(0, 7)), e.customers.size, e.orders, e.gross, e.refunds, e.gross - e.refunds])
    }
  })
})
