// Order writes and what hangs off orders: set_paid (processing, stock reduced), stock given back, refunds (amount
// precedence, api_restock), order actions (rules 1-6 of seed part 2 §4.6), notes, customers' downloads and delete.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock } from "../../../src/simulator/store/index.ts"
import { at, call, emptyShop } from "./support.ts"

type Json = Record<string, any>

describe("store simulator: order writes", () => {
  const clock = manualClock(at("2025-07-01T12:00:00Z"))
  let sim: StoreSimulator
  let stocked: Json
  let variable: Json
  let variation: Json
  beforeAll(async () => {
    sim = await emptyShop({ clock })
    stocked = (await call<Json>(sim, "/products", { method: "POST", json: { name: "Counted Candle", regular_price: "10", manage_stock: true, stock_quantity: 10 } })).body
    variable = (await call<Json>(sim, "/products", { method: "POST", json: { name: "Counted Tee", type: "variable", attributes: [{ id: 1, variation: true, options: ["S"] }] } })).body
    variation = (await call<Json>(sim, `/products/${variable["id"]}/variations`, { method: "POST", json: { regular_price: "20", manage_stock: true, stock_quantity: 5, attributes: [{ id: 1, option: "S" }] } })).body
  })
  afterAll(() => sim.close())

  const stockOf = async (path: string) => (await call<Json>(sim, path)).body["stock_quantity"] as number

  it("set_paid makes the order processing and reduces the stock of its lines, once", async () => {
    const order = await call<Json>(sim, "/orders", {
      method: "POST",
      json: { set_paid: true, billing: { email: "paid@example.com" }, line_items: [{ product_id: stocked["id"], quantity: 3 }, { product_id: variable["id"], variation_id: variation["id"], quantity: 2 }] },
    })
    expect(order.status).toBe(201)
    expect(order.body["status"]).toBe("processing")
    expect(order.body["date_paid_gmt"]).toBe("2025-07-01T12:00:00")
    expect(await stockOf(`/products/${stocked["id"]}`)).toBe(7)
    expect(await stockOf(`/products/${variable["id"]}/variations/${variation["id"]}`)).toBe(3)
    await call(sim, `/orders/${order.body["id"]}`, { method: "PUT", json: { status: "completed", set_paid: true } })
    expect(await stockOf(`/products/${stocked["id"]}`)).toBe(7)
    const notes = (await call<Json[]>(sim, `/orders/${order.body["id"]}/notes`)).body.map((n) => n["note"] as string)
    expect(notes.some((n) => n.startsWith("Stock levels reduced:"))).toBe(true)
  })

  it("set_paid on an update moves a pending order to processing; cancelling gives the stock back", async () => {
    const order = await call<Json>(sim, "/orders", { method: "POST", json: { line_items: [{ product_id: stocked["id"], quantity: 2 }] } })
    expect(order.body["status"]).toBe("pending")
    expect(await stockOf(`/products/${stocked["id"]}`)).toBe(7)
    const paid = await call<Json>(sim, `/orders/${order.body["id"]}`, { method: "PUT", json: { set_paid: true } })
    expect(paid.body["status"]).toBe("processing")
    expect(await stockOf(`/products/${stocked["id"]}`)).toBe(5)
    await call(sim, `/orders/${order.body["id"]}`, { method: "PUT", json: { status: "cancelled" } })
    expect(await stockOf(`/products/${stocked["id"]}`)).toBe(7)
  })

  it("marks a product out of stock when its stock runs out", async () => {
    await call(sim, "/orders", { method: "POST", json: { set_paid: true, line_items: [{ product_id: stocked["id"], quantity: 7 }] } })
    const p = (await call<Json>(sim, `/products/${stocked["id"]}`)).body
    expect(p).toMatchObject({ stock_quantity: 0, stock_status: "outofstock" })
  })

  it("refunds: amount wins over the line totals, api_restock puts the quantities back", async () => {
    await call(sim, `/products/${stocked["id"]}`, { method: "PUT", json: { stock_quantity: 10 } })
    const order = (await call<Json>(sim, "/orders", { method: "POST", json: { set_paid: true, line_items: [{ product_id: stocked["id"], quantity: 4 }] } })).body
    expect(await stockOf(`/products/${stocked["id"]}`)).toBe(6)
    const line = order["line_items"][0]
    const refund = await call<Json>(sim, `/orders/${order["id"]}/refunds`, { method: "POST", json: { amount: "5.00", line_items: [{ id: line["id"], quantity: 2, refund_total: 20 }] } })
    expect(refund.status).toBe(201)
    expect(refund.body["amount"]).toBe("5.00")
    expect(await stockOf(`/products/${stocked["id"]}`)).toBe(8)
    await call(sim, `/orders/${order["id"]}/refunds`, { method: "POST", json: { amount: "1.00", api_restock: false, line_items: [{ id: line["id"], quantity: 1, refund_total: 10 }] } })
    expect(await stockOf(`/products/${stocked["id"]}`)).toBe(8)
    const withoutAmount = await call<Json>(sim, `/orders/${order["id"]}/refunds`, { method: "POST", json: { api_restock: false, line_items: [{ id: line["id"], quantity: 1, refund_total: 3 }] } })
    expect(withoutAmount.body["amount"]).toBe("3.00")
  })

  it("batches order writes", async () => {
    const existing = sim.state.orders[0]!
    const res = await call<Json>(sim, "/orders/batch", {
      method: "POST",
      json: { create: [{ status: "on-hold", line_items: [{ product_id: stocked["id"], quantity: 1 }] }], update: [{ id: existing.id, customer_note: "batched" }] },
    })
    expect(res.body["create"][0]).toMatchObject({ status: "on-hold" })
    expect(res.body["update"][0]).toMatchObject({ id: existing.id, customer_note: "batched" })
  })

  describe("order actions", () => {
    const newOrder = async (body: Json) => (await call<Json>(sim, "/orders", { method: "POST", json: { line_items: [{ product_id: stocked["id"], quantity: 1 }], ...body } })).body

    it("rule 1: no billing e-mail and none given is shop_rest_missing_email (400)", async () => {
      const o = await newOrder({ status: "processing" })
      for (const path of ["send_order_details", "send_email"]) {
        const res = await call<Json>(sim, `/orders/${o["id"]}/actions/${path}`, { method: "POST", json: path === "send_email" ? { template_id: "customer_invoice" } : {} })
        expect(res.status).toBe(400)
        expect(res.body).toMatchObject({ code: "shop_rest_missing_email", data: { status: 400 } })
      }
    })

    it("rule 2 and 5: an existing e-mail is only replaced with force_email_update, and the message says so", async () => {
      const o = await newOrder({ status: "processing", billing: { email: "old@example.com" } })
      const refused = await call<Json>(sim, `/orders/${o["id"]}/actions/send_order_details`, { method: "POST", json: { email: "new@example.com" } })
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ code: expect.any(String), message: expect.any(String), data: { status: 400 } })
      expect((await call<Json>(sim, `/orders/${o["id"]}`)).body["billing"]["email"]).toBe("old@example.com")
      const forced = await call<Json>(sim, `/orders/${o["id"]}/actions/send_order_details`, { method: "POST", json: { email: "new@example.com", force_email_update: true } })
      expect(forced.status).toBe(200)
      expect(forced.body["message"]).toContain("Billing email updated to new@example.com.")
      expect(forced.body["message"]).toContain("Order details sent to new@example.com")
      expect((await call<Json>(sim, `/orders/${o["id"]}`)).body["billing"]["email"]).toBe("new@example.com")
      const given = await newOrder({ status: "processing" })
      const filled = await call<Json>(sim, `/orders/${given["id"]}/actions/send_order_details`, { method: "POST", json: { email: "first@example.com" } })
      expect(filled.body["message"]).toContain("Billing email updated to first@example.com.")
    })

    it("rule 3: a template the order does not offer is shop_rest_invalid_email_template (400)", async () => {
      const o = await newOrder({ status: "processing", billing: { email: "t@example.com" } })
      for (const template of ["customer_completed_order", "nonsense"]) {
        const res = await call<Json>(sim, `/orders/${o["id"]}/actions/send_email`, { method: "POST", json: { template_id: template } })
        expect(res.status).toBe(400)
        expect(res.body).toMatchObject({ code: "shop_rest_invalid_email_template", data: { status: 400 } })
      }
      const ok = await call<Json>(sim, `/orders/${o["id"]}/actions/send_email`, { method: "POST", json: { template_id: "customer_processing_order" } })
      expect(ok.status).toBe(200)
      expect(ok.body["message"]).toContain("t@example.com")
    })

    it("rule 4: customer_invoice behaves like send_order_details", async () => {
      const o = await newOrder({ status: "on-hold", billing: { email: "inv@example.com" } })
      const a = await call<Json>(sim, `/orders/${o["id"]}/actions/send_email`, { method: "POST", json: { template_id: "customer_invoice" }, headers: { "user-agent": "test-agent" } })
      const b = await call<Json>(sim, `/orders/${o["id"]}/actions/send_order_details`, { method: "POST", json: {}, headers: { "user-agent": "test-agent" } })
      expect(a.status).toBe(200)
      expect(a.body).toEqual(b.body)
      expect(a.body["message"]).toBe("Order details sent to inv@example.com, via test-agent.")
    })

    it("rule 6: lists the order's templates, also embedded in the order", async () => {
      const o = await newOrder({ status: "completed", billing: { email: "e@example.com" } })
      const templates = await call<Json[]>(sim, `/orders/${o["id"]}/actions/email_templates`)
      expect(templates.body.map((t) => t["id"])).toEqual(["customer_completed_order", "customer_invoice"])
      for (const t of templates.body) expect(Object.keys(t).sort()).toEqual(["description", "id", "title"])
      const embedded = await call<Json>(sim, `/orders/${o["id"]}?_embed`)
      expect(embedded.body["_embedded"]["email_templates"][0]).toEqual(templates.body)
      expect((await call<Json>(sim, `/orders/${o["id"]}`)).body).not.toHaveProperty("_embedded")
      expect((await call(sim, "/orders/999999/actions/email_templates")).status).toBe(404)
      const none = await newOrder({ status: "pending" })
      expect((await call<Json[]>(sim, `/orders/${none["id"]}/actions/email_templates`)).body).toEqual([])
    })
  })

  describe("notes", () => {
    it("creates, lists by type, reads and deletes notes; status changes leave system notes", async () => {
      const o = (await call<Json>(sim, "/orders", { method: "POST", json: { status: "pending" } })).body
      await call(sim, `/orders/${o["id"]}`, { method: "PUT", json: { status: "on-hold" } })
      const mine = await call<Json>(sim, `/orders/${o["id"]}/notes`, { method: "POST", json: { note: "Call the customer", added_by_user: true } })
      expect(mine.status).toBe(201)
      expect(mine.body).toMatchObject({ note: "Call the customer", customer_note: false, author: expect.any(String) })
      const shared = await call<Json>(sim, `/orders/${o["id"]}/notes`, { method: "POST", json: { note: "Shipped today", customer_note: true } })
      const all = (await call<Json[]>(sim, `/orders/${o["id"]}/notes`)).body
      expect(all.map((n) => n["note"])).toContain("Order status changed from Pending payment to On hold.")
      expect((await call<Json[]>(sim, `/orders/${o["id"]}/notes?type=customer`)).body.map((n) => n["id"])).toEqual([shared.body["id"]])
      expect((await call<Json[]>(sim, `/orders/${o["id"]}/notes?type=internal`)).body.map((n) => n["id"])).not.toContain(shared.body["id"])
      expect((await call<Json>(sim, `/orders/${o["id"]}/notes/${mine.body["id"]}`)).body["note"]).toBe("Call the customer")
      expect((await call(sim, `/orders/${o["id"]}/notes`, { method: "POST", json: {} })).status).toBe(400)
      expect((await call(sim, `/orders/${o["id"]}/notes/${mine.body["id"]}?force=true`, { method: "DELETE" })).status).toBe(200)
      expect((await call(sim, `/orders/${o["id"]}/notes/${mine.body["id"]}`)).status).toBe(404)
    })
  })

  describe("customers", () => {
    it("lists the download permissions of a customer's paid orders", async () => {
      const customer = (await call<Json>(sim, "/customers", { method: "POST", json: { email: "dl@example.com" } })).body
      const ebook = (
        await call<Json>(sim, "/products", { method: "POST", json: { name: "E-book", regular_price: "5", virtual: true, downloadable: true, download_limit: 3, download_expiry: 30, downloads: [{ name: "PDF", file: "https://files.example/book.pdf" }] } })
      ).body
      expect((await call<Json[]>(sim, `/customers/${customer["id"]}/downloads`)).body).toEqual([])
      const order = (await call<Json>(sim, "/orders", { method: "POST", json: { customer_id: customer["id"], set_paid: true, line_items: [{ product_id: ebook["id"], quantity: 1 }] } })).body
      const downloads = (await call<Json[]>(sim, `/customers/${customer["id"]}/downloads`)).body
      expect(downloads).toHaveLength(1)
      expect(downloads[0]).toMatchObject({
        product_id: ebook["id"],
        product_name: "E-book",
        download_name: "PDF",
        order_id: order["id"],
        order_key: order["order_key"],
        downloads_remaining: "3",
        access_expires_gmt: "2025-07-31T12:00:00",
        file: { name: "PDF", file: "https://files.example/book.pdf" },
      })
      expect(downloads[0]!["download_id"]).toMatch(/^[0-9a-f]{32}$/)
    })

    it("deletes a customer only with force, moving their orders to the reassign user", async () => {
      const gone = (await call<Json>(sim, "/customers", { method: "POST", json: { email: "gone@example.com" } })).body
      const heir = (await call<Json>(sim, "/customers", { method: "POST", json: { email: "heir@example.com" } })).body
      const order = (await call<Json>(sim, "/orders", { method: "POST", json: { customer_id: gone["id"] } })).body
      expect((await call(sim, `/customers/${gone["id"]}`, { method: "DELETE" })).status).toBe(501)
      expect((await call(sim, `/customers/${gone["id"]}?force=true&reassign=${gone["id"]}`, { method: "DELETE" })).status).toBe(400)
      const deleted = await call<Json>(sim, `/customers/${gone["id"]}?force=true&reassign=${heir["id"]}`, { method: "DELETE" })
      expect(deleted.status).toBe(200)
      expect(deleted.body["email"]).toBe("gone@example.com")
      expect((await call(sim, `/customers/${gone["id"]}`)).status).toBe(404)
      expect((await call<Json>(sim, `/orders/${order["id"]}`)).body["customer_id"]).toBe(heir["id"])
      const alone = (await call<Json>(sim, "/customers", { method: "POST", json: { email: "alone@example.com" } })).body
      const orphan = (await call<Json>(sim, "/orders", { method: "POST", json: { customer_id: alone["id"] } })).body
      await call(sim, `/customers/${alone["id"]}?force=true`, { method: "DELETE" })
      expect((await call<Json>(sim, `/orders/${orphan["id"]}`)).body["customer_id"]).toBe(0)
    })

    it("batches customer writes", async () => {
      const res = await call<Json>(sim, "/customers/batch", { method: "POST", json: { create: [{ email: "b1@example.com" }, { first_name: "No email" }] } })
      expect(res.body["create"][0]).toMatchObject({ email: "b1@example.com" })
      expect(res.body["create"][1]).toMatchObject({ id: 0, error: { code: "rest_missing_callback_param" } })
      const del = await call<Json>(sim, "/customers/batch", { method: "POST", json: { delete: [res.body["create"][0]["id"]] } })
      expect(del.body["delete"][0]).toMatchObject({ email: "b1@example.com" })
    })
  })
})
