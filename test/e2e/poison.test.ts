import { Effect, Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, type StoreState } from "../../src/simulator/store/index.js"
import type { OrderRecord } from "../../src/simulator/store/model.js"
import { touchProduct } from "../../src/simulator/store/products/product-writes.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { CurrentStore } from "../../src/warehouse/current-store.js"
import { Quarantine } from "../../src/warehouse/quarantine.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { ms, streamState } from "../support/scenarios.js"

/** The repository `status` reads. */
const quarantined = (h: Harness) =>
  Effect.runPromise(Effect.flatMap(Quarantine, (q) => q.list).pipe(
    Effect.provide(Quarantine.Default.pipe(Layer.provide([CurrentStore.layer(STORE_ID), pgLayer(Redacted.make(h.dbUrl))]))),
    Effect.scoped
  ))

const cleaned = (h: Harness) =>
  h.rows<{ stream: string; id: string }>("SELECT stream, id FROM store.cleaned WHERE store_id = $1 ORDER BY stream, id", [STORE_ID])

const orderIds = async (h: Harness) =>
  new Set((await h.rows<{ id: number }>("SELECT id::int AS id FROM store.orders WHERE store_id = $1", [STORE_ID])).map((r) => r.id))

/** The (second, id) the orders cursor must reach: the last order of `status=any` in the walk's order. */
const lastOrder = (state: StoreState) =>
  state.orders.filter((o) => o.status !== "trash").sort((a, b) => a.modified - b.modified || a.id - b.id).at(-1)!

describe("poison records", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let state: StoreState
  let withNul: OrderRecord
  let escaped: OrderRecord
  let invalid: OrderRecord
  let refused: OrderRecord

  beforeAll(async () => {
    // 20 a page over 300 orders: the walk is split into slices, and a refused page is bisected.
    h = await makeHarness({ clock, data: { seed: 23, orders: 300, customers: 60, start: "2026-03-01", days: 90 } }, { perPage: 20 })
    state = h.sim.state
  })
  afterAll(() => h.close())

  it("a NUL is removed and noted, a misfit and a row PostgreSQL refuses are quarantined, the rest lands and the cursor passes them", async () => {
    const live = state.orders.filter((o) => o.status !== "trash").sort((a, b) => a.id - b.id)
    ;[withNul, escaped, invalid, refused] = [live[10]!, live[11]!, live[40]!, live[41]!]
    // PHP's serialized meta leaks NULs; an escaped backslash before "u0000" is no NUL and stays as it is.
    state.updateOrder(withNul.id, { customer_note: "gift\u0000wrap" })
    state.updateOrder(escaped.id, { customer_note: "C:\\u0000dir" })
    // Served as is: a currency that is not a string does not fit the order schema.
    ;(invalid as { currency: unknown }).currency = null
    // Fits the schema, but parent_id 1.5 is no bigint: PostgreSQL refuses it (22P02).
    refused.parentId = 1.5
    clock.advance(2_000)
    await h.sync()

    const ids = await orderIds(h)
    expect(ids.size).toBe(state.orders.length - 2)
    expect(ids.has(invalid.id)).toBe(false)
    expect(ids.has(refused.id)).toBe(false)
    const notes = await h.rows<{ id: number; note: string }>(
      "SELECT id::int AS id, doc->>'customer_note' AS note FROM store.orders WHERE store_id = $1 AND id = ANY($2) ORDER BY id",
      [STORE_ID, [withNul.id, escaped.id]]
    )
    expect(notes).toEqual([{ id: withNul.id, note: "giftwrap" }, { id: escaped.id, note: "C:\\u0000dir" }].sort((a, b) => a.id - b.id))
    expect(await cleaned(h)).toEqual([{ stream: "orders", id: String(withNul.id) }])

    const held = await quarantined(h)
    expect(held.map((r) => [r.stream, r.id, r.kind, r.attempts]).sort()).toEqual(
      [["orders", String(invalid.id), "invalid", 1], ["orders", String(refused.id), "load", 1]].sort()
    )
    expect(held.find((r) => r.id === String(invalid.id))!.reason).toContain("currency")
    expect(held.find((r) => r.id === String(refused.id))!.reason).toContain("22P02")
    const [raw] = await h.rows<{ doc: string }>("SELECT doc FROM store.quarantine WHERE store_id = $1 AND id = $2", [STORE_ID, String(invalid.id)])
    expect(JSON.parse(raw!.doc)).toMatchObject({ id: invalid.id, currency: null })

    const last = lastOrder(state)
    const orders = (await streamState(h)).find((s) => s.stream === "orders")!
    // The cursor passed them all: it covers the last order's second, whole.
    expect([orders.cursor_at, orders.cursor_id]).toEqual([last.modified, null])
    expect(orders.last_error).toBeNull()
  })

  it("a run that finds them unchanged counts another attempt; once the store fixes them they land and leave", async () => {
    clock.advance(60_000)
    await h.sync({ streams: ["orders"] })
    expect((await quarantined(h)).map((r) => r.attempts)).toEqual([2, 2])

    // Fixed without touching date_modified: only reading them again by id finds them.
    ;(invalid as { currency: unknown }).currency = "USD"
    refused.parentId = 0
    clock.advance(60_000)
    await h.sync({ streams: ["orders"] })
    expect(await quarantined(h)).toEqual([])
    const ids = await orderIds(h)
    expect(ids.size).toBe(state.orders.length)
    const [row] = await h.rows<{ currency: string }>("SELECT currency FROM store.orders WHERE store_id = $1 AND id = $2", [STORE_ID, invalid.id])
    expect(row?.currency).toBe("USD")
  })

  it("a quarantined order the store deletes leaves the quarantine", async () => {
    const doomed = state.orders.filter((o) => o.status !== "trash").sort((a, b) => a.id - b.id)[70]!
    ;(doomed as { currency: unknown }).currency = 7
    state.updateOrder(doomed.id, { customer_note: "touched" })
    clock.advance(2_000)
    await h.sync({ streams: ["orders"] })
    expect((await quarantined(h)).map((r) => r.id)).toEqual([String(doomed.id)])

    state.forceDeleteOrder(doomed.id)
    clock.advance(60_000)
    await h.sync({ streams: ["orders"] })
    expect(await quarantined(h)).toEqual([])
  })

  it("refunds and products walk past their poison records too, which land once fixed", async () => {
    const order = state.orders.find((o) => o.status === "completed" && o.refundIds.length === 0)!
    const noted = state.createRefund(order.id, { amount: "1.00", reason: "damaged\u0000box", api_refund: false })
    const broken = state.createRefund(order.id, { amount: "2.00", reason: "late", api_refund: false })
    const amount = broken.amount
    // Served as "NaN": not the decimal string a refund's amount must be.
    broken.amount = Number.NaN
    const product = state.products.sort((a, b) => a.id - b.id)[3]!
    touchProduct(state, product, () => { (product as { type: unknown }).type = null })
    clock.advance(2_000)
    await h.sync({ streams: ["orders", "refunds", "products"] })

    const refunds = await h.rows<{ id: number; reason: string }>("SELECT id::int AS id, reason FROM store.refunds WHERE store_id = $1 AND order_id = $2", [STORE_ID, order.id])
    expect(refunds).toEqual([{ id: noted.id, reason: "damagedbox" }])
    expect((await quarantined(h)).map((r) => [r.stream, r.id]).sort()).toEqual([["products", String(product.id)], ["refunds", String(broken.id)]])
    const cursors = new Map((await streamState(h)).map((s) => [s.stream, s]))
    const lastRefund = state.refunds.sort((a, b) => a.created - b.created || a.id - b.id).at(-1)!
    expect([cursors.get("refunds")!.cursor_at, cursors.get("refunds")!.cursor_id]).toEqual([lastRefund.created, null])
    const lastProduct = state.products.filter((p) => p.status !== "trash").sort((a, b) => a.modified - b.modified || a.id - b.id).at(-1)!
    expect([cursors.get("products")!.cursor_at, cursors.get("products")!.cursor_id]).toEqual([lastProduct.modified, null])

    broken.amount = amount
    ;(product as { type: unknown }).type = "simple"
    clock.advance(60_000)
    await h.sync({ streams: ["orders", "refunds", "products"] })
    expect(await quarantined(h)).toEqual([])
    const [landed] = await h.rows<{ amount: string }>("SELECT amount::text AS amount FROM store.refunds WHERE store_id = $1 AND id = $2", [STORE_ID, broken.id])
    expect(landed?.amount).toBe("2.00")
    const [type] = await h.rows<{ type: string }>("SELECT type FROM store.products WHERE store_id = $1 AND id = $2", [STORE_ID, product.id])
    expect(type?.type).toBe("simple")
  })

  it("a NUL in a customer is removed and noted; the scan goes on", async () => {
    const customer = state.customers.sort((a, b) => a.id - b.id)[5]!
    state.updateCustomer(customer.id, { first_name: "Zo\u0000e" })
    clock.advance(2_000)
    await h.sync({ streams: ["customers"] })
    const [row] = await h.rows<{ first_name: string }>("SELECT first_name FROM store.customers WHERE store_id = $1 AND id = $2", [STORE_ID, customer.id])
    expect(row?.first_name).toBe("Zoe")
    expect((await cleaned(h)).filter((c) => c.stream === "customers")).toEqual([{ stream: "customers", id: String(customer.id) }])
    const [{ n }] = await h.rows<{ n: number }>("SELECT count(*)::int AS n FROM store.customers WHERE store_id = $1", [STORE_ID]) as [{ n: number }]
    expect(n).toBe(state.customers.length)
  })
})
