import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { at, call, emptyShop, simpleProductId } from "./support.ts"

interface Refund {
  id: number
  parent_id?: number
  date_created: string
  date_created_gmt: string
  amount: string
  reason: string
  refunded_by: number
  refunded_payment: boolean
  meta_data: unknown[]
  line_items: Array<{ id: number; product_id: number; quantity: number; total: string; total_tax: string; meta_data: Array<{ key: string; value: string }> }>
  shipping_lines: unknown[]
  tax_lines: Array<{ tax_total: string }>
  fee_lines: unknown[]
  _links: Record<string, Array<{ href: string }>>
}
interface Order {
  id: number
  status: string
  total: string
  date_modified_gmt: string
  line_items: Array<{ id: number; total: string; total_tax: string; quantity: number }>
  refunds: Array<{ id: number; reason: string; total: string }>
}

describe("store simulator: refunds", () => {
  const clock = manualClock(at("2025-05-01T12:00:00Z"))
  let sim: StoreSimulator
  let orderId: number
  beforeAll(async () => {
    sim = await emptyShop({ clock })
    orderId = sim.state.createOrder({
      status: "completed",
      billing: { country: "US", state: "CA" },
      line_items: [
        { product_id: simpleProductId(sim), quantity: 2, total: "40.00" },
        { product_id: simpleProductId(sim), quantity: 1, total: "10.00" },
      ],
    }).id
  })
  afterAll(() => sim.close())

  it("creates a refund: positive amount, negative lines, parent's date_modified bumped, order.refunds negative", async () => {
    const order = (await call<Order>(sim, `/orders/${orderId}`)).body
    const line = order.line_items[0]!
    clock.set(at("2025-05-02T15:30:00Z"))
    const created = await call<Refund>(sim, `/orders/${orderId}/refunds`, {
      method: "POST",
      json: { reason: "Wrong size", api_refund: false, line_items: [{ id: line.id, quantity: 1, refund_total: 20, refund_tax: [{ id: 2, refund_total: 1.45 }] }] },
    })
    expect(created.status).toBe(201)
    const r = created.body
    expect(r).toMatchObject({ amount: "21.45", reason: "Wrong size", refunded_by: 1, refunded_payment: false, date_created_gmt: "2025-05-02T15:30:00", date_created: "2025-05-02T11:30:00" })
    expect(Object.keys(r)).toEqual(["id", "date_created", "date_created_gmt", "amount", "reason", "refunded_by", "refunded_payment", "meta_data", "line_items", "shipping_lines", "tax_lines", "fee_lines", "_links"])
    expect(r.line_items).toHaveLength(1)
    expect(r.line_items[0]).toMatchObject({ quantity: -1, total: "-20.00", total_tax: "-1.45" })
    expect(r.line_items[0]!.meta_data).toContainEqual(expect.objectContaining({ key: "_refunded_item_id", value: String(line.id) }))
    expect(r.tax_lines[0]).toMatchObject({ tax_total: "-1.45" })
    expect(r._links["up"]![0]!.href).toBe(`${sim.url}/orders/${orderId}`)

    const after = (await call<Order>(sim, `/orders/${orderId}`)).body
    expect(after.date_modified_gmt).toBe("2025-05-02T15:30:00")
    expect(after.refunds).toEqual([{ id: r.id, reason: "Wrong size", total: "-21.45" }])
    expect(after.status).toBe("completed")
  })

  it("lets the amount win over the line totals", async () => {
    // A second later than the first refund: refunds of one second tie, and a store lists ties in any order.
    clock.set(at("2025-05-02T15:30:01Z"))
    const line = (await call<Order>(sim, `/orders/${orderId}`)).body.line_items[1]!
    const r = await call<Refund>(sim, `/orders/${orderId}/refunds`, { method: "POST", json: { amount: "3.00", line_items: [{ id: line.id, quantity: 1, refund_total: "10.00" }] } })
    expect(r.status).toBe(201)
    expect(r.body.amount).toBe("3.00")
    expect(r.body.line_items[0]).toMatchObject({ total: "-10.00" })
  })

  it("lists an order's refunds (newest first) and gets one; unknown ids are 404", async () => {
    const list = await call<Refund[]>(sim, `/orders/${orderId}/refunds`)
    expect(list.status).toBe(200)
    expect(list.body.map((r) => r.amount)).toEqual(["3.00", "21.45"])
    expect(list.headers.get("x-wp-total")).toBe("2")
    const one = await call<Refund>(sim, `/orders/${orderId}/refunds/${list.body[1]!.id}`)
    expect(one.body.amount).toBe("21.45")
    const missing = await call(sim, `/orders/${orderId}/refunds/999999`)
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ code: "woocommerce_rest_shop_order_refund_invalid_id" })
    expect((await call(sim, "/orders/999999/refunds", { method: "POST", json: { amount: "1" } })).body).toMatchObject({ code: "woocommerce_rest_invalid_order_id", data: { status: 404 } })
  })

  it("refuses a refund larger than what is left, and negative amounts", async () => {
    const tooMuch = await call(sim, `/orders/${orderId}/refunds`, { method: "POST", json: { amount: "100000.00" } })
    expect(tooMuch.status).toBe(500)
    expect(tooMuch.body).toMatchObject({ code: "woocommerce_rest_cannot_create_order_refund", message: "Invalid refund amount." })
    const negative = await call(sim, `/orders/${orderId}/refunds`, { method: "POST", json: { amount: "-1" } })
    expect(negative.status).toBe(400)
    expect(negative.body).toMatchObject({ code: "woocommerce_rest_invalid_order_refund" })
  })

  it("deletes a refund only with force=true, without touching the parent order", async () => {
    const [newest] = (await call<Refund[]>(sim, `/orders/${orderId}/refunds`)).body
    const before = (await call<Order>(sim, `/orders/${orderId}`)).body
    clock.set(at("2025-05-09T00:00:00Z"))
    const refused = await call(sim, `/orders/${orderId}/refunds/${newest!.id}`, { method: "DELETE" })
    expect(refused.status).toBe(501)
    const deleted = await call<Refund>(sim, `/orders/${orderId}/refunds/${newest!.id}?force=true`, { method: "DELETE" })
    expect(deleted.status).toBe(200)
    expect(deleted.body.id).toBe(newest!.id)
    const after = (await call<Order>(sim, `/orders/${orderId}`)).body
    expect(after.date_modified_gmt).toBe(before.date_modified_gmt)
    expect(after.status).toBe(before.status)
    expect(after.refunds.map((r) => r.id)).not.toContain(newest!.id)
    expect((await call(sim, `/orders/${orderId}/refunds/${newest!.id}`)).status).toBe(404)
  })

  it("a refund of everything left moves the order to refunded", async () => {
    const o = sim.state.createOrder({ status: "processing", line_items: [{ product_id: simpleProductId(sim), total: "12.00" }] })
    clock.set(at("2025-05-10T00:00:00Z"))
    await call(sim, `/orders/${o.id}/refunds`, { method: "POST", json: { amount: "2.00" } })
    expect((await call<Order>(sim, `/orders/${o.id}`)).body.status).toBe("processing")
    await call(sim, `/orders/${o.id}/refunds`, { method: "POST", json: { amount: "10.00" } })
    expect((await call<Order>(sim, `/orders/${o.id}`)).body.status).toBe("refunded")
  })

  it("setting status refunded refunds what is left automatically, as WooCommerce does", async () => {
    const o = sim.state.createOrder({ status: "completed", line_items: [{ product_id: simpleProductId(sim), total: "30.00" }] })
    sim.state.createRefund(o.id, { amount: "5.00" })
    const updated = await call<Order>(sim, `/orders/${o.id}`, { method: "PUT", json: { status: "refunded" } })
    expect(updated.body.status).toBe("refunded")
    expect(updated.body.refunds.map((r) => r.total).sort()).toEqual(["-25.00", "-5.00"])
  })
})

describe("store simulator: store-wide refunds", () => {
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await startStoreSimulator({ data: { seed: 9, orders: 400, bursts: 0 } })
  })
  afterAll(() => sim.close())

  it("lists every refund across orders with parent_id, filterable by parent", async () => {
    const all: Refund[] = []
    for (let page = 1; ; page++) {
      const res = await call<Refund[]>(sim, `/refunds?per_page=100&page=${page}&orderby=id&order=asc`)
      all.push(...res.body)
      if (page >= Number(res.headers.get("x-wp-totalpages"))) break
    }
    const expected = sim.state.refunds
    expect(all.map((r) => r.id)).toEqual(expected.map((r) => r.id).sort((a, b) => a - b))
    for (const r of all) expect(r.parent_id).toBe(expected.find((x) => x.id === r.id)!.orderId)
    const parent = expected[0]!.orderId
    const ofParent = await call<Refund[]>(sim, `/refunds?parent=${parent}`)
    expect(ofParent.body.map((r) => r.id).sort()).toEqual(expected.filter((r) => r.orderId === parent).map((r) => r.id).sort())
  })

  it("sorts by refund date by default, newest first", async () => {
    const page = (await call<Refund[]>(sim, "/refunds?per_page=50")).body
    for (let i = 1; i < page.length; i++) expect(page[i - 1]!.date_created_gmt >= page[i]!.date_created_gmt).toBe(true)
  })

  it("does not exist on stores before WooCommerce 9.0 (storeWideRefunds: false)", async () => {
    const old = await startStoreSimulator({ storeWideRefunds: false, data: { seed: 9, orders: 50 } })
    try {
      const res = await call(old, "/refunds")
      expect(res.status).toBe(404)
      expect(res.body).toMatchObject({ code: "rest_no_route" })
      const id = old.state.refunds[0]!.orderId
      expect((await call(old, `/orders/${id}/refunds`)).status).toBe(200)
    } finally {
      await old.close()
    }
  })
})
