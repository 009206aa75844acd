// Webhooks (seed part 2 §3, §4.15, §6): CRUD, topics bound to resource events, background POSTs with the
// X-Shop-Webhook-* headers to a real receiver, the signature checked here with node:crypto, the delivery log, and
// the status machine (paused by an administrator, disabled after 5 consecutive failures, re-enabled by an edit).
import { createHmac } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock } from "../../../src/simulator/store/index.ts"
import { type Received, at, call, emptyShop, simpleProductId, startReceiver } from "./support.ts"

type Json = Record<string, any>

const header = (r: Received, name: string) => r.headers[name.toLowerCase()] as string | undefined
/** The webhook deliveries (the creation ping carries no topic header). */
const deliveries = (rs: Received[]) => rs.filter((r) => header(r, "X-Shop-Webhook-Topic") !== undefined)

describe("store simulator: webhooks", () => {
  let sim: StoreSimulator
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let failing = false
  beforeAll(async () => {
    sim = await emptyShop({ clock: manualClock(at("2025-10-01T12:00:00Z")) })
    receiver = await startReceiver((r) => (failing && header(r, "X-Shop-Webhook-Topic") !== undefined ? 500 : 200))
  })
  afterAll(async () => {
    await sim.close()
    await receiver.close()
  })

  const createHook = async (body: Json) => {
    const res = await call<Json>(sim, "/webhooks", { method: "POST", json: { delivery_url: receiver.url, ...body } })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    return res.body
  }

  it("creates webhooks: topic and delivery_url mandatory, resource/event/hooks derived, secret never shown", async () => {
    expect((await call<Json>(sim, "/webhooks", { method: "POST", json: { delivery_url: receiver.url } })).body).toMatchObject({ code: "woocommerce_rest_webhook_invalid_topic" })
    expect((await call<Json>(sim, "/webhooks", { method: "POST", json: { topic: "order.exploded", delivery_url: receiver.url } })).status).toBe(400)
    expect((await call<Json>(sim, "/webhooks", { method: "POST", json: { topic: "order.created", delivery_url: "ftp://x" } })).status).toBe(400)
    const hook = await createHook({ name: "Orders", topic: "order.updated", secret: "s3cr3t", status: "paused" })
    expect(hook).toMatchObject({ name: "Orders", status: "paused", topic: "order.updated", resource: "order", event: "updated", delivery_url: receiver.url })
    expect(hook["hooks"]).toEqual(expect.arrayContaining(["woocommerce_update_order"]))
    expect(hook).not.toHaveProperty("secret")
    const custom = await createHook({ topic: "action.my_custom_hook", status: "paused" })
    expect(custom).toMatchObject({ resource: "action", event: "my_custom_hook", hooks: ["my_custom_hook"] })
    expect((await call<Json[]>(sim, "/webhooks?status=paused")).body.map((w) => w["id"])).toEqual(expect.arrayContaining([hook["id"], custom["id"]]))
    expect((await call<Json[]>(sim, "/webhooks?status=active")).body).toEqual([])
    await call(sim, `/webhooks/${hook["id"]}?force=true`, { method: "DELETE" })
    await call(sim, `/webhooks/${custom["id"]}?force=true`, { method: "DELETE" })
  })

  it("delivers the resource in the background, signed with base64 HMAC-SHA256 of the exact body", async () => {
    const secret = "my-webhook-secret"
    const hook = await createHook({ topic: "order.created", secret })
    const start = receiver.received.length
    const created = await call<Json>(sim, "/orders", { method: "POST", json: { status: "pending", billing: { email: "hook@example.com" } } })
    await sim.webhooksIdle()
    const got = deliveries(receiver.received.slice(start))
    expect(got).toHaveLength(1)
    const d = got[0]!
    expect(d.method).toBe("POST")
    expect(header(d, "content-type")).toContain("application/json")
    expect(header(d, "X-Shop-Webhook-Topic")).toBe("order.created")
    expect(header(d, "X-Shop-Webhook-Resource")).toBe("order")
    expect(header(d, "X-Shop-Webhook-Event")).toBe("created")
    expect(header(d, "X-Shop-Webhook-ID")).toBe(String(hook["id"]))
    expect(header(d, "X-Shop-Webhook-Source")).toBe(`${new URL(sim.url).origin}/`)
    expect(header(d, "X-Shop-Webhook-Delivery-ID")).toMatch(/^\d+$/)
    const expected = createHmac("sha256", secret).update(d.raw).digest("base64")
    expect(header(d, "X-Shop-Webhook-Signature")).toBe(expected)
    expect(createHmac("sha256", "wrong").update(d.raw).digest("base64")).not.toBe(expected)
    const payload = JSON.parse(d.raw.toString("utf8"))
    expect(payload).toEqual(created.body)

    const log = sim.state.webhooks.deliveriesOf(hook["id"])
    expect(log).toHaveLength(1)
    expect(log[0]).toMatchObject({ id: Number(header(d, "X-Shop-Webhook-Delivery-ID")), request: { url: receiver.url, method: "POST", body: d.raw.toString("utf8") }, response: { code: 200, body: "ok" } })
    expect(log[0]!.request.headers["X-Shop-Webhook-Signature"]).toBe(expected)
    expect(log[0]!.duration).toBeGreaterThanOrEqual(0)
    await call(sim, `/webhooks/${hook["id"]}?force=true`, { method: "DELETE" })
  })

  it("binds topics to resource events: created, updated, deleted (trash) for orders, products and customers", async () => {
    const hooks = await Promise.all(
      ["order.updated", "order.deleted", "product.created", "product.updated", "product.deleted", "customer.created", "customer.updated", "customer.deleted"].map((topic) => createHook({ topic })),
    )
    await sim.webhooksIdle()
    const start = receiver.received.length
    const order = sim.state.createOrder({ status: "pending" })
    await call(sim, `/orders/${order.id}`, { method: "PUT", json: { status: "on-hold" } })
    await call(sim, `/orders/${order.id}`, { method: "DELETE" })
    const product = (await call<Json>(sim, "/products", { method: "POST", json: { name: "Hooked" } })).body
    await call(sim, `/products/${product["id"]}`, { method: "PUT", json: { name: "Hooked 2" } })
    await call(sim, `/products/${product["id"]}`, { method: "DELETE" })
    const customer = (await call<Json>(sim, "/customers", { method: "POST", json: { email: "hooked@example.com" } })).body
    await call(sim, `/customers/${customer["id"]}`, { method: "PUT", json: { first_name: "Hooky" } })
    await call(sim, `/customers/${customer["id"]}?force=true`, { method: "DELETE" })
    await sim.webhooksIdle()
    const got = deliveries(receiver.received.slice(start))
    const topics = got.map((r) => header(r, "X-Shop-Webhook-Topic"))
    for (const topic of ["order.updated", "order.deleted", "product.created", "product.updated", "product.deleted", "customer.created", "customer.updated", "customer.deleted"]) {
      expect(topics, topic).toContain(topic)
    }
    const deleted = got.filter((r) => header(r, "X-Shop-Webhook-Event") === "deleted").map((r) => JSON.parse(r.raw.toString()))
    expect(deleted).toEqual(expect.arrayContaining([{ id: order.id }, { id: product["id"] }, { id: customer["id"] }]))
    const productCreated = got.find((r) => header(r, "X-Shop-Webhook-Topic") === "product.created")!
    expect(JSON.parse(productCreated.raw.toString())).toMatchObject({ id: product["id"], name: "Hooked" })
    for (const h of hooks) await call(sim, `/webhooks/${h["id"]}?force=true`, { method: "DELETE" })
  })

  it("delivers action.<hook> topics with the hook's first argument", async () => {
    const hook = await createHook({ topic: "action.woocommerce_order_refunded" })
    await sim.webhooksIdle()
    const start = receiver.received.length
    const order = sim.state.createOrder({ status: "completed", line_items: [{ product_id: simpleProductId(sim), quantity: 1 }] })
    await call(sim, `/orders/${order.id}/refunds`, { method: "POST", json: { amount: "1.00" } })
    sim.state.hooks.emit("my_plugin_hook", { anything: 1 })
    await sim.webhooksIdle()
    const got = deliveries(receiver.received.slice(start))
    expect(got.map((r) => JSON.parse(r.raw.toString()))).toEqual([{ action: "woocommerce_order_refunded", arg: order.id }])
    expect(header(got[0]!, "X-Shop-Webhook-Topic")).toBe("action.woocommerce_order_refunded")
    await call(sim, `/webhooks/${hook["id"]}?force=true`, { method: "DELETE" })
  })

  it("stops delivering while paused by an administrator", async () => {
    const hook = await createHook({ topic: "customer.updated" })
    await call(sim, `/webhooks/${hook["id"]}`, { method: "PUT", json: { status: "paused" } })
    await sim.webhooksIdle()
    const start = receiver.received.length
    await call(sim, `/customers/${sim.state.customers[0]!.id}`, { method: "PUT", json: { last_name: "Paused" } })
    await sim.webhooksIdle()
    expect(deliveries(receiver.received.slice(start))).toEqual([])
    expect((await call<Json>(sim, `/webhooks/${hook["id"]}`, { method: "PUT", json: { status: "active" } })).body["status"]).toBe("active")
    await call(sim, `/customers/${sim.state.customers[0]!.id}`, { method: "PUT", json: { last_name: "Active" } })
    await sim.webhooksIdle()
    expect(deliveries(receiver.received.slice(start))).toHaveLength(1)
    await call(sim, `/webhooks/${hook["id"]}?force=true`, { method: "DELETE" })
  })

  it("is disabled after 5 consecutive non-2xx deliveries and re-enabled by an edit", async () => {
    const hook = await createHook({ topic: "product.updated" })
    await sim.webhooksIdle()
    const product = simpleProductId(sim)
    const touch = async (n: number) => {
      await call(sim, `/products/${product}`, { method: "PUT", json: { short_description: `touch ${n}` } })
      await sim.webhooksIdle()
    }
    failing = true
    for (let n = 1; n <= 4; n++) await touch(n)
    expect((await call<Json>(sim, `/webhooks/${hook["id"]}`)).body["status"]).toBe("active")
    // A success in between resets the count: failures must be consecutive.
    failing = false
    await touch(5)
    failing = true
    for (let n = 6; n <= 9; n++) await touch(n)
    expect((await call<Json>(sim, `/webhooks/${hook["id"]}`)).body["status"]).toBe("active")
    await touch(10)
    expect((await call<Json>(sim, `/webhooks/${hook["id"]}`)).body["status"]).toBe("disabled")
    const log = sim.state.webhooks.deliveriesOf(hook["id"])
    expect(log.map((d) => d.response.code)).toEqual([500, 500, 500, 500, 200, 500, 500, 500, 500, 500])

    const start = receiver.received.length
    failing = false
    await touch(11)
    expect(deliveries(receiver.received.slice(start))).toEqual([])
    expect((await call<Json[]>(sim, "/webhooks?status=disabled")).body.map((w) => w["id"])).toContain(hook["id"])

    const edited = await call<Json>(sim, `/webhooks/${hook["id"]}`, { method: "PUT", json: { status: "active" } })
    expect(edited.body["status"]).toBe("active")
    await touch(12)
    expect(deliveries(receiver.received.slice(start))).toHaveLength(1)
    // The count starts again from zero: one failure does not disable it.
    failing = true
    await touch(13)
    expect((await call<Json>(sim, `/webhooks/${hook["id"]}`)).body["status"]).toBe("active")
    failing = false
    await call(sim, `/webhooks/${hook["id"]}?force=true`, { method: "DELETE" })
  })

  it("counts an unreachable delivery URL as a failure", async () => {
    const hook = (await call<Json>(sim, "/webhooks", { method: "POST", json: { topic: "order.created", delivery_url: "http://127.0.0.1:1/closed", secret: "x" } })).body
    sim.state.createOrder({ status: "pending" })
    await sim.webhooksIdle()
    const log = sim.state.webhooks.deliveriesOf(hook["id"])
    expect(log).toHaveLength(1)
    expect(log[0]!.response.code).toBe(0)
    expect(sim.state.webhooks.byId.get(hook["id"])!.failures).toBe(1)
  })

  it("pings a new active webhook with a form-encoded webhook_id, unsigned", async () => {
    const start = receiver.received.length
    const hook = await createHook({ topic: "coupon.created" })
    await sim.webhooksIdle()
    const ping = receiver.received.slice(start).find((r) => header(r, "X-Shop-Webhook-Topic") === undefined)!
    expect(ping.raw.toString()).toBe(`webhook_id=${hook["id"]}`)
    expect(header(ping, "content-type")).toContain("application/x-www-form-urlencoded")
    expect(header(ping, "X-Shop-Webhook-Signature")).toBeUndefined()
  })

  it("batches webhook writes", async () => {
    const res = await call<Json>(sim, "/webhooks/batch", { method: "POST", json: { create: [{ topic: "order.deleted", delivery_url: receiver.url, status: "paused" }, { topic: "bad", delivery_url: receiver.url }] } })
    expect(res.body["create"][0]).toMatchObject({ topic: "order.deleted", status: "paused" })
    expect(res.body["create"][1]).toMatchObject({ id: 0, error: { code: "woocommerce_rest_webhook_invalid_topic" } })
  })
})
