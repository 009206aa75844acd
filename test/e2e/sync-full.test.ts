import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"

const clock = manualClock(Date.parse("2026-06-01T12:00:00Z"))

describe("full sync, then incremental syncs after changes", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, timezone: "America/New_York", data: { seed: 11, orders: 1500, start: "2026-01-05", days: 90 } })
  })
  afterAll(() => h.close())

  it("loads every order, refund, customer and product, and daily net sales equal the simulator's own computation", async () => {
    const summary = await h.sync()
    expect(summary?.streams.map((s) => s.error)).toEqual([undefined, undefined, undefined, undefined, undefined])
    expect(await h.netSales()).toEqual(h.expectedNetSales())

    const state = h.sim.state
    const [counts] = await h.rows<Record<string, number>>(`SELECT
      (SELECT count(*)::int FROM store.orders WHERE store_id = $1 AND deleted_at IS NULL) AS orders,
      (SELECT count(*)::int FROM store.refunds WHERE store_id = $1 AND deleted_at IS NULL) AS refunds,
      (SELECT count(*)::int FROM store.customers WHERE store_id = $1 AND deleted_at IS NULL) AS customers,
      (SELECT count(*)::int FROM store.products WHERE store_id = $1 AND deleted_at IS NULL) AS products,
      (SELECT count(*)::int FROM store.order_line_items WHERE store_id = $1) AS line_items`, [STORE_ID])
    expect(counts).toEqual({
      orders: state.orders.length,
      refunds: state.refunds.length,
      customers: state.customers.length,
      products: state.products.length,
      line_items: state.orders.reduce((n, o) => n + o.line_items.length, 0)
    })
  })

  it("keeps each document exactly as the API sent it, and its normalized columns and lines", async () => {
    const sample = h.sim.state.orders.filter((o) => o.line_items.length > 1 && o.refundIds.length > 0)[0]!
    const auth = `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}`
    const api = await (await fetch(`${h.sim.url}/orders/${sample.id}`, { headers: { authorization: auth } })).json() as Record<string, any>
    const [row] = await h.rows<{ doc: unknown; number: string; total: string; billing_email: string | null; date_created_local: string }>(
      "SELECT doc, number, total::text, billing_email, date_created_local::text FROM store.orders WHERE store_id = $1 AND id = $2", [STORE_ID, sample.id])
    const { _links: _ignored, ...apiWithoutLinks } = api
    expect(row!.doc).toMatchObject(apiWithoutLinks)
    expect(row!.number).toBe(api.number)
    expect(row!.total).toBe(api.total)
    expect(row!.date_created_local).toBe(api.date_created.replace("T", " "))
    const lines = await h.rows<{ id: string; product_id: string; quantity: string; total: string }>(
      "SELECT id::text, product_id::text, quantity::text, total::text FROM store.order_line_items WHERE store_id = $1 AND order_id = $2 ORDER BY id", [STORE_ID, sample.id])
    expect(lines).toEqual(api.line_items.map((l: any) => ({ id: String(l.id), product_id: String(l.product_id), quantity: String(l.quantity), total: l.total })))
  })

  it("a second sync with nothing changed loads nothing and costs a handful of requests per stream", async () => {
    const before = await h.requests()
    const summary = await h.sync({ streams: ["orders", "refunds", "products"] })
    expect(summary?.streams.map((s) => s.rows)).toEqual([0, 0, 0])
    expect((await h.requests()) - before).toBeLessThanOrEqual(12)
  })

  it("picks up new orders, status changes, new refunds and new customers", async () => {
    const state = h.sim.state
    const processing = state.orders.find((o) => o.status === "processing")!
    const completed = state.orders.filter((o) => o.status === "completed")
    clock.advance(60_000)
    state.updateOrder(processing.id, { status: "cancelled" })
    state.createRefund(completed[0]!.id, { amount: "5.00", reason: "late" })
    const created = state.createOrder({ status: "completed", currency: "USD" })
    state.createCustomer({ email: "new.customer@example.com", first_name: "New", last_name: "Customer" })
    clock.advance(2_000)

    await h.sync()
    expect(await h.netSales()).toEqual(h.expectedNetSales())
    const [row] = await h.rows<{ status: string }>("SELECT status FROM store.orders WHERE store_id = $1 AND id = $2", [STORE_ID, processing.id])
    expect(row?.status).toBe("cancelled")
    expect(await h.rows("SELECT 1 FROM store.orders WHERE store_id = $1 AND id = $2", [STORE_ID, created.id])).toHaveLength(1)
    expect(await h.rows("SELECT 1 FROM store.customers WHERE store_id = $1 AND email = 'new.customer@example.com'", [STORE_ID])).toHaveLength(1)
  })

  it("records each stream's cursor and the run in sync.state / sync.runs", async () => {
    const streams = await h.rows<{ stream: string; last_error: string | null }>("SELECT stream, last_error FROM sync.state WHERE store_id = $1 ORDER BY stream", [STORE_ID])
    expect(streams.map((s) => s.stream)).toEqual(expect.arrayContaining(["customers", "orders", "orders.trash", "products", "refunds", "reports"]))
    expect(streams.every((s) => s.last_error === null)).toBe(true)
    const runs = await h.rows<{ status: string }>("SELECT status FROM sync.runs WHERE store_id = $1", [STORE_ID])
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"])
  })
})
