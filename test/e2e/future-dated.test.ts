// A document dated in the future outranks every true copy after it (issue 20, finding 8): a signed delivery dated
// past the skew is checked with the store, and a backfill replaces what differs from the store whatever its date.
// Expected figures are the simulator's own (its GET /orders/<id> and its daily_net_sales reference).
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bodyDigest, Inbox } from "../../src/webhooks/inbox.js"
import { applyPass } from "../../src/webhooks/worker.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { localDay } from "../support/scenarios.js"

const FUTURE = "2099-01-01T00:00:00"
const TZ = "America/New_York"

describe("documents dated in the future", () => {
  let h: Harness
  let delivery = 0
  const auth = { authorization: `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}` }
  const storeOrder = async (id: number) => (await (await fetch(`${h.sim.url}/orders/${id}`, { headers: auth })).json()) as Record<string, unknown>
  const held = async (id: number) =>
    (await h.rows<{ total: string; modified: string }>("SELECT total::text, doc->>'date_modified_gmt' AS modified FROM store.orders WHERE store_id = $1 AND id = $2", [STORE_ID, id]))[0]
  /** Stores a signed delivery of `doc` in the inbox and runs the apply pass over it; its inbox row after. */
  const applied = async (doc: Record<string, unknown>) => {
    const body = JSON.stringify(doc)
    const id = String(++delivery)
    await h.run(Effect.gen(function*() {
      const inbox = yield* Inbox
      yield* inbox.add({ storeId: STORE_ID, webhookId: "1", deliveryId: id, topic: "order.updated", body, digest: bodyDigest("order.updated", Buffer.from(body)) }, 1 << 30)
      yield* applyPass(STORE_ID, { attempts: new Map(), count: () => Effect.void, unapplicable: () => Effect.void })
    }).pipe(Effect.provide(Inbox.Default)))
    return (await h.rows<{ state: string; reason: string | null }>("SELECT state, reason FROM sync.webhook_inbox WHERE delivery_id = $1", [id]))[0]
  }
  const completed = (skip: number) => h.sim.state.orders.filter((o) => o.status === "completed")[skip]!

  beforeAll(async () => {
    h = await makeHarness({ timezone: TZ, data: { seed: 20, orders: 300, start: "2026-06-01", days: 30 } })
    await h.sync()
  })
  afterAll(() => h?.close())

  it("a signed delivery dated past the skew is replaced by the store's copy: its planted total does not land", async () => {
    const order = completed(0)
    const truth = await storeOrder(order.id)
    const state = await applied({ ...truth, total: "9999.00", date_modified_gmt: FUTURE })
    expect(state?.state).not.toBe("failed")
    expect(await held(order.id)).toEqual({ total: Number(truth.total).toFixed(2), modified: truth.date_modified_gmt })
    expect(await h.netSales()).toEqual(h.expectedNetSales())
    // The store's true copy, changed later, is applied after it as any newer delivery is.
    h.sim.state.updateOrder(order.id, { status: "refunded" })
    const changed = await storeOrder(order.id)
    expect((await applied(changed))?.state).toBe("applied")
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("one dated past the skew for an order the store does not have ends failed, with nothing written", async () => {
    const truth = await storeOrder(completed(1).id)
    const state = await applied({ ...truth, id: 987_654, number: "987654", date_modified_gmt: FUTURE })
    expect(state?.state).toBe("failed")
    expect(state?.reason).toContain("the store does not have it")
    expect(await held(987_654)).toBeUndefined()
  })

  it("a sync keeps a future-dated row against an older page; a backfill replaces it with the store's content", async () => {
    const order = completed(2)
    await h.rows(
      `UPDATE store.orders SET total = 9999.00, date_modified = '${FUTURE}Z',
         doc = doc || jsonb_build_object('total', '9999.00', 'date_modified_gmt', '${FUTURE}')
       WHERE store_id = $1 AND id = $2`,
      [STORE_ID, order.id]
    )
    h.sim.state.updateOrder(order.id, { status: "processing" })
    await h.sync()
    // The sync's protection against going backwards (an out-of-order page) stays: it does not replace the row.
    expect((await held(order.id))?.total).toBe("9999.00")
    const day = localDay(order.created, TZ)
    await h.sync({ mode: { kind: "backfill", since: day, until: day } })
    const truth = await storeOrder(order.id)
    expect(await held(order.id)).toEqual({ total: Number(truth.total).toFixed(2), modified: truth.date_modified_gmt })
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})
