import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { at, call } from "./support.ts"

type Money = string
interface Order {
  id: number
  status: string
  total: Money
  total_tax: Money
  cart_tax: Money
  shipping_total: Money
  shipping_tax: Money
  discount_total: Money
  date_modified_gmt: string
  date_created_gmt: string
  customer_id: number
  billing: { email: string }
  line_items: Array<{ id: number; product_id: number; quantity: number; subtotal: Money; total: Money; total_tax: Money; price: number }>
  fee_lines: Array<{ total: Money }>
  tax_lines: Array<{ tax_total: Money; shipping_tax_total: Money }>
  refunds: Array<{ id: number; total: Money }>
  _links: { self: Array<{ href: string }>; collection: Array<{ href: string }> }
}

const cents = (m: Money) => Math.round(Number(m) * 100)

describe("store simulator: orders", () => {
  const clock = manualClock(at("2025-03-01T12:00:00Z"))
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock, data: { seed: 4, orders: 300, bursts: 0 } })
  })
  afterAll(() => sim.close())

  const allIds = async (query: string): Promise<number[]> => {
    const ids: number[] = []
    for (let page = 1; ; page++) {
      const res = await call<Order[]>(sim, `/orders?per_page=100&page=${page}&${query}`)
      ids.push(...res.body.map((o) => o.id))
      if (page >= Number(res.headers.get("x-wp-totalpages"))) return ids
    }
  }

  it("keeps every generated order's totals consistent with its lines", async () => {
    const orders = (await call<Order[]>(sim, "/orders?per_page=100&status=any")).body
    expect(orders.length).toBe(100)
    for (const o of orders) {
      const lines = o.line_items.reduce((s, l) => s + cents(l.total) + cents(l.total_tax), 0)
      const fees = o.fee_lines.reduce((s, f) => s + cents(f.total), 0)
      expect(cents(o.total), `order ${o.id}`).toBe(lines + cents(o.shipping_total) + cents(o.shipping_tax) + fees)
      expect(cents(o.cart_tax)).toBe(o.line_items.reduce((s, l) => s + cents(l.total_tax), 0))
      expect(cents(o.total_tax)).toBe(cents(o.cart_tax) + cents(o.shipping_tax))
      expect(cents(o.discount_total)).toBe(o.line_items.reduce((s, l) => s + cents(l.subtotal) - cents(l.total), 0))
      for (const l of o.line_items) expect(typeof l.price).toBe("number")
      expect(o._links.self[0]!.href).toBe(`${sim.url}/orders/${o.id}`)
      expect(o._links.collection[0]!.href).toBe(`${sim.url}/orders`)
      expect(Date.parse(o.date_modified_gmt + "Z")).toBeGreaterThanOrEqual(Date.parse(o.date_created_gmt + "Z"))
    }
  })

  it("formats money with dp decimals", async () => {
    const id = sim.state.orders.find((o) => o.total > 0)!.id
    const two = (await call<Order>(sim, `/orders/${id}`)).body.total
    const three = (await call<Order>(sim, `/orders/${id}?dp=3`)).body.total
    expect(two).toMatch(/^\d+\.\d{2}$/)
    expect(three).toBe(`${two}0`)
  })

  it("lists every status but trash for status=any, and only trashed orders for status=trash", async () => {
    const trashed = sim.state.orders.filter((o) => o.status === "trash").map((o) => o.id)
    expect(trashed.length).toBeGreaterThan(0)
    const any = await allIds("")
    const explicitAny = await allIds("status=any")
    expect(explicitAny).toEqual(any)
    expect(any.some((id) => trashed.includes(id))).toBe(false)
    expect(any.length).toBe(sim.state.orders.length - trashed.length)
    expect((await allIds("status=trash")).sort()).toEqual([...trashed].sort())
  })

  it("filters by one status, a comma list or status[] and by customer", async () => {
    const count = (statuses: string[]) => sim.state.orders.filter((o) => statuses.includes(o.status)).length
    expect((await allIds("status=completed")).length).toBe(count(["completed"]))
    expect((await allIds("status=pending,failed")).length).toBe(count(["pending", "failed"]))
    expect((await allIds("status[]=on-hold&status[]=refunded")).length).toBe(count(["on-hold", "refunded"]))
    const customer = sim.state.orders.find((o) => o.customerId > 0)!.customerId
    const theirs = sim.state.orders.filter((o) => o.customerId === customer && o.status !== "trash").map((o) => o.id)
    expect((await allIds(`customer=${customer}`)).sort()).toEqual(theirs.sort())
  })

  it("orders by id, date and modified, ties broken by id in the same direction", async () => {
    const bodies = async (q: string) => (await call<Order[]>(sim, `/orders?per_page=100&${q}`)).body
    const asc = await bodies("orderby=modified&order=asc")
    for (let i = 1; i < asc.length; i++) {
      const [a, b] = [asc[i - 1]!, asc[i]!]
      expect(a.date_modified_gmt < b.date_modified_gmt || (a.date_modified_gmt === b.date_modified_gmt && a.id < b.id)).toBe(true)
    }
    const desc = await bodies("orderby=date")
    for (let i = 1; i < desc.length; i++) {
      const [a, b] = [desc[i - 1]!, desc[i]!]
      expect(a.date_created_gmt > b.date_created_gmt || (a.date_created_gmt === b.date_created_gmt && a.id > b.id)).toBe(true)
    }
    const ids = (await bodies("orderby=id&order=asc")).map((o) => o.id)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
  })

  it("supports include (with orderby=include), exclude and refuses orderby=include without include", async () => {
    const [a, b, c] = sim.state.orders.filter((o) => o.status !== "trash").map((o) => o.id)
    expect((await call<Order[]>(sim, `/orders?include=${c},${a},${b}&orderby=include&order=asc`)).body.map((o) => o.id)).toEqual([c, a, b])
    expect((await call<Order[]>(sim, `/orders?include=${a},${b}&exclude=${a}`)).body.map((o) => o.id)).toEqual([b])
    const refused = await call(sim, "/orders?orderby=include")
    expect(refused.status).toBe(400)
  })

  it("creates an order with POST, priced from the catalogue, and updates it with PUT", async () => {
    const product = sim.state.products.find((p) => p.type === "simple" && p.salePrice < 0)!
    clock.set(at("2025-03-02T10:00:00Z"))
    const created = await call<Order>(sim, "/orders", {
      method: "POST",
      json: {
        status: "pending",
        billing: { first_name: "Ada", email: "ada@example.com", country: "US", state: "NY" },
        line_items: [{ product_id: product.id, quantity: 2 }],
        shipping_lines: [{ method_id: "flat_rate", method_title: "Flat rate", total: "5.00" }],
      },
    })
    expect(created.status).toBe(201)
    expect(created.headers.get("location")).toBe(`${sim.url}/orders/${created.body.id}`)
    const o = created.body
    expect(o.billing.email).toBe("ada@example.com")
    expect(o.line_items[0]).toMatchObject({ product_id: product.id, quantity: 2, subtotal: (product.regularPrice * 2 / 100).toFixed(2) })
    // New York tax 8.875 % on the line and on shipping.
    const lineTax = Math.round(product.regularPrice * 2 * 0.08875)
    const shipTax = Math.round(500 * 0.08875)
    expect(cents(o.total)).toBe(product.regularPrice * 2 + lineTax + 500 + shipTax)
    expect(o.date_created_gmt).toBe("2025-03-02T10:00:00")
    expect(o.status).toBe("pending")

    clock.set(at("2025-03-02T11:00:00Z"))
    const updated = await call<Order & { date_paid_gmt: string; date_completed_gmt: string }>(sim, `/orders/${o.id}`, { method: "PUT", json: { status: "completed" } })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ status: "completed", date_modified_gmt: "2025-03-02T11:00:00", date_completed_gmt: "2025-03-02T11:00:00", date_paid_gmt: "2025-03-02T11:00:00" })
    expect((await allIds("modified_after=2025-03-02T10:59:59&dates_are_gmt=true"))).toEqual([o.id])

    const bad = await call(sim, `/orders/${o.id}`, { method: "PUT", json: { status: "shipped" } })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ code: "rest_invalid_param" })
  })

  it("trashes without force (bumping date_modified), refuses a second trash, and force-deletes for good", async () => {
    const target = sim.state.orders.find((o) => o.status === "completed")!
    clock.set(at("2025-03-03T09:00:00Z"))
    const trashed = await call<Order>(sim, `/orders/${target.id}`, { method: "DELETE" })
    expect(trashed.status).toBe(200)
    expect(trashed.body).toMatchObject({ id: target.id, status: "trash", date_modified_gmt: "2025-03-03T09:00:00" })
    expect(await allIds("")).not.toContain(target.id)
    expect(await allIds("status=trash")).toContain(target.id)
    expect((await call(sim, `/orders/${target.id}`)).body).toMatchObject({ status: "trash" })
    const again = await call(sim, `/orders/${target.id}`, { method: "DELETE" })
    expect(again.status).toBe(410)
    expect(again.body).toMatchObject({ code: "woocommerce_rest_already_trashed" })

    const gone = await call<Order>(sim, `/orders/${target.id}?force=true`, { method: "DELETE" })
    expect(gone.status).toBe(200)
    expect(gone.body.id).toBe(target.id)
    const lookup = await call(sim, `/orders/${target.id}`)
    expect(lookup.status).toBe(404)
    expect(lookup.body).toMatchObject({ code: "woocommerce_rest_shop_order_invalid_id", data: { status: 404 } })
    for (const q of ["", "status=trash", "status=any", `include=${target.id}`]) expect(await allIds(q)).not.toContain(target.id)
  })

  it("force-deletes a live order directly, its refunds with it", async () => {
    const target = sim.state.orders.find((o) => o.status !== "trash" && o.refundIds.length > 0)!
    const refundIds = [...target.refundIds]
    const res = await call(sim, `/orders/${target.id}?force=true`, { method: "DELETE" })
    expect(res.status).toBe(200)
    expect((await call(sim, `/orders/${target.id}`)).status).toBe(404)
    const storeWide = (await call<Array<{ id: number }>>(sim, `/refunds?per_page=100&include=${refundIds.join(",")}`)).body
    expect(storeWide).toEqual([])
  })

  it("bulkTouchOrders gives every order the same date_modified second", async () => {
    const ids = sim.state.orders.filter((o) => o.status === "processing").slice(0, 5).map((o) => o.id)
    clock.set(at("2025-03-04T08:00:00.750Z"))
    sim.state.bulkTouchOrders(ids)
    const shown = (await call<Order[]>(sim, `/orders?per_page=100&include=${ids.join(",")}`)).body
    expect(shown.map((o) => o.date_modified_gmt)).toEqual(ids.map(() => "2025-03-04T08:00:00"))
  })
})
