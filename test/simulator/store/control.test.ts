// The simulator's control route (/__simulator, outside the store API): the delivery log another process (the
// benchmark) reads, without a key, each delivery with the receiver's answer; nothing else is served there, and
// the store API does not list it.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StoreSimulator } from "../../../src/simulator/store/index.ts"
import { call, emptyShop, simpleProductId, startReceiver } from "./support.ts"

describe("store simulator: control route", () => {
  let sim: StoreSimulator
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  const origin = () => sim.url.replace(/\/wp-json\/.*$/, "")
  const log = async (query = "") => (await fetch(`${origin()}/__simulator/webhook-deliveries${query}`)).json() as Promise<Array<Record<string, unknown>>>

  beforeAll(async () => {
    sim = await emptyShop()
    let n = 0
    // The first delivery is accepted, the next refused: the log carries each answer.
    receiver = await startReceiver((r) => (r.headers["x-shop-webhook-topic"] === undefined ? 200 : n++ === 0 ? 200 : 500))
  })
  afterAll(async () => {
    await sim.close()
    await receiver.close()
  })

  it("lists every delivery made, with the receiver's status code, once the queue is idle", async () => {
    expect(await log()).toEqual([])
    const hook = (await call<Record<string, unknown>>(sim, "/webhooks", { method: "POST", json: { topic: "order.updated", delivery_url: receiver.url, secret: "s" } })).body
    const order = (await call<Record<string, unknown>>(sim, "/orders", { method: "POST", json: { status: "processing", line_items: [{ product_id: simpleProductId(sim), quantity: 1 }] } })).body
    for (const status of ["completed", "cancelled"]) {
      await call(sim, `/orders/${order["id"]}`, { method: "PUT", json: { status } })
      await sim.webhooksIdle()
    }
    const expected = sim.state.webhooks.deliveries.map((d) => ({ id: d.id, webhook_id: hook["id"], topic: "order.updated", code: d.response.code }))
    expect(expected.map((d) => d.code)).toEqual([200, 500])
    expect(await log("?idle=1")).toEqual(expected)
  })

  it("answers nothing else, and stays out of the store API's namespace index", async () => {
    expect((await fetch(`${origin()}/__simulator/orders`)).status).toBe(404)
    expect((await fetch(`${origin()}/__simulator/webhook-deliveries`, { method: "POST" })).status).toBe(404)
    const index = (await call<{ routes: Record<string, unknown> }>(sim, "")).body
    expect(Object.keys(index.routes).some((r) => r.includes("simulator"))).toBe(false)
  })
})
