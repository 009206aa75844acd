// The conventions of seed part 1 §2.1 and §4.1 across the resources: batch limit and result shape, delete and
// force, context, READ-ONLY and WRITE-ONLY fields, _links, the error shape.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock } from "../../../src/simulator/store/index.ts"
import { at, call, emptyShop, simpleProductId } from "./support.ts"

type Json = Record<string, any>

const expectError = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  expect(res.body).toEqual({ code, message: expect.any(String), data: expect.objectContaining({ status }) })
}

describe("store simulator: conventions", () => {
  const clock = manualClock(at("2025-06-01T12:00:00Z"))
  let sim: StoreSimulator
  let variable: number
  beforeAll(async () => {
    sim = await emptyShop({ clock })
    variable = sim.state.products.find((p) => p.type === "variable")!.id
  })
  afterAll(() => sim.close())

  describe("batch", () => {
    const endpoints = () => [
      { path: "/products/batch", item: (i: number) => ({ name: `Batch product ${i}` }) },
      { path: `/products/${variable}/variations/batch`, item: () => ({ regular_price: "5" }) },
      { path: "/orders/batch", item: () => ({ status: "pending" }) },
      { path: "/customers/batch", item: (i: number) => ({ email: `batch${i}@example.com` }) },
      { path: "/taxes/batch", item: (i: number) => ({ country: "US", rate: "1", name: `T${i}` }) },
      { path: "/products/reviews/batch", item: () => ({ product_id: simpleProductId(sim), review: "Fine.", rating: 4 }) },
      { path: "/products/attributes/batch", item: (i: number) => ({ name: `Attr ${i}` }) },
      { path: "/products/attributes/1/terms/batch", item: (i: number) => ({ name: `Term ${i}` }) },
      { path: "/products/categories/batch", item: (i: number) => ({ name: `Category ${i}` }) },
      { path: "/products/shipping_classes/batch", item: (i: number) => ({ name: `Class ${i}` }) },
      { path: "/webhooks/batch", item: () => ({ topic: "order.created", delivery_url: "http://127.0.0.1:1/none", status: "paused" }) },
    ]

    it("refuses more than 100 objects counted across create, update and delete, changing nothing", async () => {
      for (const { path, item } of endpoints()) {
        const list = `${path.replace(/\/batch$/, "")}?per_page=100`
        const before = (await call(sim, list)).text
        const res = await call(sim, path, {
          method: "POST",
          json: { create: Array.from({ length: 50 }, (_, i) => item(i)), update: Array.from({ length: 30 }, () => ({ id: 1 })), delete: Array.from({ length: 21 }, (_, i) => 900000 + i) },
        })
        expectError(res, 413, "woocommerce_rest_request_entity_too_large")
        expect((await call(sim, list)).text, path).toBe(before)
      }
    })

    it("accepts exactly 100 objects and answers each list in order, failures in place", async () => {
      const res = await call<Json>(sim, "/products/categories/batch", {
        method: "POST",
        json: { create: Array.from({ length: 99 }, (_, i) => ({ name: `Hundred ${i}` })), delete: [999999] },
      })
      expect(res.status).toBe(200)
      expect(res.body["create"]).toHaveLength(99)
      expect(res.body["create"][0]).toMatchObject({ name: "Hundred 0", id: expect.any(Number) })
      expect(res.body["delete"]).toEqual([{ id: 999999, error: { code: "woocommerce_rest_term_invalid", message: expect.any(String), data: { status: 404 } } }])
      expect(res.body).not.toHaveProperty("update")

      const mixed = await call<Json>(sim, "/products/batch", {
        method: "POST",
        json: { create: [{ name: "Good" }, { name: "Bad", type: "nonsense" }], update: [{ id: 987654, name: "x" }] },
      })
      expect(mixed.body["create"][0]).toMatchObject({ name: "Good" })
      expect(mixed.body["create"][1]).toMatchObject({ id: 0, error: { code: "rest_invalid_param", data: { status: 400 } } })
      expect(mixed.body["update"][0]).toMatchObject({ id: 987654, error: { code: "woocommerce_rest_product_invalid_id" } })
    })

    it("deletes for good in a batch, even for resources that would trash", async () => {
      const created = await call<Json>(sim, "/orders", { method: "POST", json: { status: "pending" } })
      const res = await call<Json>(sim, "/orders/batch", { method: "POST", json: { delete: [created.body["id"]] } })
      expect(res.body["delete"][0]).toMatchObject({ id: created.body["id"] })
      expectError(await call(sim, `/orders/${created.body["id"]}`), 404, "woocommerce_rest_shop_order_invalid_id")
    })
  })

  describe("delete and force", () => {
    it("requires force=true where the resource has no trash, and leaves the resource in place without it", async () => {
      const product = simpleProductId(sim)
      const variation = sim.state.products.find((p) => p.id === variable)!.variationIds[0]!
      const customer = (await call<Json>(sim, "/customers", { method: "POST", json: { email: "force@example.com" } })).body["id"]
      const tax = (await call<Json>(sim, "/taxes", { method: "POST", json: { country: "FR", rate: "5.5" } })).body["id"]
      const review = (await call<Json>(sim, "/products/reviews", { method: "POST", json: { product_id: product, review: "Ok", rating: 3 } })).body["id"]
      const attribute = (await call<Json>(sim, "/products/attributes", { method: "POST", json: { name: "Material" } })).body["id"]
      const term = (await call<Json>(sim, `/products/attributes/${attribute}/terms`, { method: "POST", json: { name: "Wool" } })).body["id"]
      const category = (await call<Json>(sim, "/products/categories", { method: "POST", json: { name: "Force" } })).body["id"]
      const shippingClass = (await call<Json>(sim, "/products/shipping_classes", { method: "POST", json: { name: "Force" } })).body["id"]
      await call(sim, "/taxes/classes", { method: "POST", json: { name: "Force rate" } })
      const order = sim.state.createOrder({ status: "completed", line_items: [{ product_id: product, quantity: 1 }] })
      const note = (await call<Json>(sim, `/orders/${order.id}/notes`, { method: "POST", json: { note: "hello" } })).body["id"]
      const refund = (await call<Json>(sim, `/orders/${order.id}/refunds`, { method: "POST", json: { amount: "1.00" } })).body["id"]
      const zone = (await call<Json>(sim, "/shipping/zones", { method: "POST", json: { name: "Force" } })).body["id"]
      const method = (await call<Json>(sim, `/shipping/zones/${zone}/methods`, { method: "POST", json: { method_id: "flat_rate" } })).body["instance_id"]
      const paths = [
        `/products/${variable}/variations/${variation}`,
        `/customers/${customer}`,
        `/taxes/${tax}`,
        `/products/reviews/${review}`,
        `/products/attributes/${attribute}`,
        `/products/attributes/${attribute}/terms/${term}`,
        `/products/categories/${category}`,
        `/products/shipping_classes/${shippingClass}`,
        "/taxes/classes/force-rate",
        `/orders/${order.id}/notes/${note}`,
        `/orders/${order.id}/refunds/${refund}`,
        `/shipping/zones/${zone}`,
        `/shipping/zones/${zone}/methods/${method}`,
      ]
      for (const path of paths) {
        for (const query of ["", "?force=false"]) expectError(await call(sim, `${path}${query}`, { method: "DELETE" }), 501, "woocommerce_rest_trash_not_supported")
        if (!path.startsWith("/taxes/classes")) expect((await call(sim, path)).status, path).toBe(200)
      }
      for (const path of [...paths].reverse()) expect((await call(sim, `${path}?force=true`, { method: "DELETE" })).status, path).toBe(200)
      for (const path of paths.filter((p) => !p.startsWith("/taxes/classes"))) expect((await call(sim, path)).status, path).toBe(404)
    })

    it("trashes products and webhooks by default; force=true deletes them for good", async () => {
      const product = (await call<Json>(sim, "/products", { method: "POST", json: { name: "Trash me" } })).body
      const trashed = await call<Json>(sim, `/products/${product["id"]}`, { method: "DELETE" })
      expect(trashed.body["status"]).toBe("trash")
      expect((await call<Json[]>(sim, "/products?per_page=100")).body.map((p) => p["id"])).not.toContain(product["id"])
      expect((await call<Json[]>(sim, "/products?status=trash")).body.map((p) => p["id"])).toContain(product["id"])
      expectError(await call(sim, `/products/${product["id"]}`, { method: "DELETE" }), 410, "woocommerce_rest_already_trashed")
      const restored = await call<Json>(sim, `/products/${product["id"]}`, { method: "PUT", json: { status: "publish" } })
      expect(restored.body["status"]).toBe("publish")
      expect((await call(sim, `/products/${product["id"]}?force=true`, { method: "DELETE" })).status).toBe(200)
      expectError(await call(sim, `/products/${product["id"]}`), 404, "woocommerce_rest_product_invalid_id")

      const hook = (await call<Json>(sim, "/webhooks", { method: "POST", json: { topic: "product.updated", delivery_url: "http://127.0.0.1:1/x", status: "paused" } })).body
      expect((await call(sim, `/webhooks/${hook["id"]}`, { method: "DELETE" })).status).toBe(200)
      expect((await call<Json[]>(sim, "/webhooks")).body.map((w) => w["id"])).not.toContain(hook["id"])
      expect((await call(sim, `/webhooks/${hook["id"]}`)).status).toBe(200)
      expect((await call(sim, `/webhooks/${hook["id"]}?force=true`, { method: "DELETE" })).status).toBe(200)
      expectError(await call(sim, `/webhooks/${hook["id"]}`), 404, "woocommerce_rest_webhook_invalid_id")
    })
  })

  describe("context", () => {
    it("accepts view and edit only; edit-only fields appear in the edit context", async () => {
      expectError(await call(sim, "/products?context=embed"), 400, "rest_invalid_param")
      expectError(await call(sim, `/products/${simpleProductId(sim)}?context=admin`), 400, "rest_invalid_param")
      const view = await call<Json>(sim, `/products/${simpleProductId(sim)}`)
      const edit = await call<Json>(sim, `/products/${simpleProductId(sim)}?context=edit`)
      expect(view.body).not.toHaveProperty("post_password")
      expect(edit.body).toHaveProperty("post_password", "")
    })

    it("shows a review's text as rendered paragraphs in view and raw in edit", async () => {
      const id = (await call<Json>(sim, "/products/reviews", { method: "POST", json: { product_id: simpleProductId(sim), review: "Great mug.\n\nWould buy again.", rating: 5 } })).body["id"]
      expect((await call<Json>(sim, `/products/reviews/${id}`)).body["review"]).toBe("<p>Great mug.</p>\n<p>Would buy again.</p>\n")
      expect((await call<Json>(sim, `/products/reviews/${id}?context=edit`)).body["review"]).toBe("Great mug.\n\nWould buy again.")
    })

    it("reports take the view context only", async () => {
      expect((await call(sim, "/reports/sales?context=view")).status).toBe(200)
      expectError(await call(sim, "/reports/sales?context=edit"), 400, "rest_invalid_param")
    })
  })

  describe("read-only and write-only fields", () => {
    it("ignores READ-ONLY fields on write", async () => {
      const res = await call<Json>(sim, "/products", {
        method: "POST",
        json: { id: 5, name: "Read only", regular_price: "10.00", price: "1.00", total_sales: 99, permalink: "http://evil/", date_created: "2001-01-01T00:00:00", average_rating: "5.00", variations: [1, 2] },
      })
      expect(res.status).toBe(201)
      expect(res.body["id"]).not.toBe(5)
      expect(Number(res.body["price"])).toBe(10)
      expect(res.body).toMatchObject({ total_sales: 0, average_rating: "0", variations: [], date_created_gmt: "2025-06-01T12:00:00" })
      expect(res.body["permalink"]).not.toContain("evil")

      const order = await call<Json>(sim, "/orders", { method: "POST", json: { status: "pending", total: "999.00", number: "X1", order_key: "mine", line_items: [{ product_id: simpleProductId(sim), quantity: 1 }] } })
      expect(order.body["total"]).not.toBe("999.00")
      expect(order.body["number"]).toBe(String(order.body["id"]))
      expect(order.body["order_key"]).not.toBe("mine")
      const customer = await call<Json>(sim, "/customers", { method: "POST", json: { email: "ro@example.com", role: "administrator", is_paying_customer: true } })
      expect(customer.body).toMatchObject({ role: "customer", is_paying_customer: false })
    })

    it("never returns WRITE-ONLY fields", async () => {
      const customer = await call<Json>(sim, "/customers", { method: "POST", json: { email: "wo@example.com", password: "s3cret!" } })
      expect(customer.body).not.toHaveProperty("password")
      expect(customer.text).not.toContain("s3cret!")
      const order = await call<Json>(sim, "/orders", { method: "POST", json: { set_paid: true, line_items: [{ product_id: simpleProductId(sim), quantity: 1 }] } })
      expect(order.body).not.toHaveProperty("set_paid")
      const hook = await call<Json>(sim, "/webhooks", { method: "POST", json: { topic: "order.updated", delivery_url: "http://127.0.0.1:1/x", secret: "topsecret", status: "paused" } })
      expect(hook.body).not.toHaveProperty("secret")
      expect(JSON.stringify((await call(sim, `/webhooks/${hook.body["id"]}?context=edit`)).body)).not.toContain("topsecret")
      const refund = await call<Json>(sim, `/orders/${order.body["id"]}/refunds`, { method: "POST", json: { amount: "1.00", api_refund: false, api_restock: false } })
      expect(refund.body).not.toHaveProperty("api_refund")
      expect(refund.body).not.toHaveProperty("api_restock")
      const tool = await call<Json>(sim, "/system_status/tools/clear_transients", { method: "PUT", json: { confirm: true } })
      expect(tool.body).not.toHaveProperty("confirm")
    })

    it("keeps created_via as set at creation", async () => {
      const order = await call<Json>(sim, "/orders", { method: "POST", json: { created_via: "pos", status: "pending" } })
      expect(order.body["created_via"]).toBe("pos")
      const updated = await call<Json>(sim, `/orders/${order.body["id"]}`, { method: "PUT", json: { created_via: "admin", customer_note: "changed" } })
      expect(updated.body).toMatchObject({ created_via: "pos", customer_note: "changed" })
    })
  })

  it("links every resource to itself and its collection", async () => {
    const r = await call<Json>(sim, "/products/categories", { method: "POST", json: { name: "Linked" } })
    expect(r.body["_links"]).toEqual({ self: [{ href: `${sim.url}/products/categories/${r.body["id"]}` }], collection: [{ href: `${sim.url}/products/categories` }] })
    for (const path of ["/taxes", "/products/reviews", "/products/attributes", "/products/shipping_classes", "/webhooks", `/products/${variable}/variations`, "/shipping/zones"]) {
      const list = await call<Json[]>(sim, path)
      for (const item of list.body) {
        expect(item["_links"]["self"][0]["href"], path).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/wp-json\/wc\/v3\//)
        expect(item["_links"]["collection"][0]["href"], path).toBe(`${sim.url}${path}`)
      }
    }
  })
})
