// The webhook inbox has a per-store size bound (issue 20, finding 7): `serve` with SHOPSYNC_INBOX_MAX_MB=0.03
// (31,457 bytes) makes room by dropping applied and skipped deliveries, refuses with 503 and Retry-After what pending
// and failed ones leave no room for, counts it, and takes deliveries again once room is made. Expected sizes are
// the bodies this test sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sqlRows } from "../support/database.js"
import { deliver, eventually, serveStore, signed } from "../support/serve.js"

const SECRET = "whsec_inbox_bound"
const STORE = "bound-t"
const BOUND = Math.floor(0.03 * 1024 * 1024)
const COUPON_BYTES = 4_000

describe("the inbox's size bound", () => {
  let served: Awaited<ReturnType<typeof serveStore>>
  let delivery = 0
  const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => sqlRows<T>(served.db.url, text, params)
  const send = (topic: string, body: string, id = String(++delivery)) =>
    deliver(served.serve.hookUrl, body, { "x-wc-webhook-id": "1", "x-wc-webhook-topic": topic, "x-wc-webhook-delivery-id": id, "x-wc-webhook-signature": signed(body, SECRET) })
  /** A coupon delivery (a topic shopsync does not apply: it ends failed, kept to be looked at) of exactly COUPON_BYTES. */
  const coupon = (n: number) => {
    const head = JSON.stringify({ id: n, code: `c${n}`, pad: "" })
    return head.replace('"pad":""', `"pad":"${"x".repeat(COUPON_BYTES - head.length)}"`)
  }
  const settled = () => eventually(async () => (await q("SELECT 1 FROM sync.webhook_inbox WHERE state = 'pending'")).length === 0, 5_000, "inbox settled")
  const metric = async (pattern: RegExp) => Number(pattern.exec(await (await fetch(`${served.serve.admin}/metrics`)).text())?.[1])

  beforeAll(async () => {
    served = await serveStore({ seed: 23, orders: 20, customers: 5, products: 4, start: "2026-06-01", days: 5 }, STORE, SECRET, { SHOPSYNC_INBOX_MAX_MB: "0.03" })
  })
  afterAll(() => served?.close())

  it("makes room from applied and skipped deliveries, then answers 503 with Retry-After until room is made", async () => {
    const auth = { authorization: `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}` }
    const orders = await Promise.all(served.sim.state.orders.slice(0, 3).map(async (o) => await (await fetch(`${served.sim.url}/orders/${o.id}`, { headers: auth })).text()))
    const orderIds: string[] = []
    for (const body of orders) {
      const id = String(++delivery)
      orderIds.push(id)
      expect((await send("order.updated", body, id)).status).toBe(200)
    }
    await settled()
    expect(await q<{ state: string }>("SELECT state FROM sync.webhook_inbox ORDER BY seq")).toEqual(orders.map(() => ({ state: "skipped" })))

    const answers: number[] = []
    for (let n = 1; n <= Math.floor(BOUND / COUPON_BYTES) + 1; n++) answers.push((await send("coupon.updated", coupon(n))).status)
    const fits = Math.floor(BOUND / COUPON_BYTES)
    expect(answers).toEqual([...Array(fits).fill(200), 503])
    const refused = await send("coupon.updated", coupon(99))
    expect(refused.status).toBe(503)
    expect(refused.headers.get("retry-after")).toBe("60")
    // A resend of a stored delivery is still answered as one: it takes no room.
    expect(await (await send("coupon.updated", coupon(1), String(orderIds.length + 1))).json()).toEqual({ stored: "duplicate" })

    await settled()
    const left = await q<{ delivery_id: string }>("SELECT delivery_id FROM sync.webhook_inbox WHERE state = 'skipped'")
    expect(left.length).toBeLessThan(orders.length)
    const held = fits * COUPON_BYTES + left.reduce((sum, r) => sum + Buffer.byteLength(orders[orderIds.indexOf(r.delivery_id)]!), 0)
    expect(await metric(new RegExp(`^shopsync_webhook_inbox_bytes\\{store="${STORE}"\\} (\\d+)$`, "m"))).toBe(held)
    expect(await metric(/^shopsync_webhook_deliveries_total\{outcome="full"\} (\d+)$/m)).toBe(2)

    // An operator looks at the failed deliveries and removes them: the store's deliveries are taken again.
    await q("DELETE FROM sync.webhook_inbox WHERE state = 'failed'")
    expect(await (await send("coupon.updated", coupon(100))).json()).toEqual({ stored: "new" })
    await settled()
    expect(await metric(new RegExp(`^shopsync_webhook_inbox_bytes\\{store="${STORE}"\\} (\\d+)$`, "m"))).toBe(held - fits * COUPON_BYTES + COUPON_BYTES)
  })
})
