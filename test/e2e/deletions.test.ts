import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, type StoreState } from "../../src/simulator/store/index.js"
import type { OrderRecord } from "../../src/simulator/store/model.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { COUNTED, expectOrdersMatchStore, expectRefundsMatchStore, failedSync, localDay, ms, warehouseOrders, warehouseRefunds } from "../support/scenarios.js"

const TZ = "America/New_York"
const cents = (money: string | number) => Math.round(Number(money) * 100)
const money = (c: number) => (c / 100).toFixed(2)

const netSalesRow = async (h: Harness, day: string, currency: string) =>
  (await h.netSales()).find((r) => r.day === day && r.currency === currency)

const counted = async (h: Harness, id: number) =>
  (await h.rows("SELECT 1 FROM analytics.counted_orders WHERE store_id = $1 AND id = $2", [STORE_ID, id])).length === 1

describe("deletions in a store with the store-wide refunds list", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let state: StoreState
  const sameDayOrders = (o: OrderRecord) =>
    state.orders.filter((x) => COUNTED.has(x.status) && x.currency === o.currency && localDay(x.created, TZ) === localDay(o.created, TZ)).length

  beforeAll(async () => {
    h = await makeHarness({ clock, timezone: TZ, data: { seed: 41, orders: 900, start: "2026-01-05", days: 90 } })
    state = h.sim.state
    await h.sync()
    await expectOrdersMatchStore(h)
    await expectRefundsMatchStore(h)
  })
  afterAll(() => h.close())

  it("a trashed order keeps its row with status 'trash' and leaves daily_net_sales", async () => {
    const order = state.orders.find((o) => o.status === "completed" && o.refundIds.length === 0 && sameDayOrders(o) >= 2)!
    const day = localDay(order.created, TZ)
    const before = (await netSalesRow(h, day, order.currency))!
    expect(await counted(h, order.id)).toBe(true)

    clock.advance(60_000)
    state.trashOrder(order.id)
    clock.advance(2_000)
    await h.sync()

    const [row] = await h.rows<{ status: string; deleted: boolean }>(
      "SELECT status, deleted_at IS NOT NULL AS deleted FROM store.orders WHERE store_id = $1 AND id = $2", [STORE_ID, order.id])
    expect(row).toEqual({ status: "trash", deleted: false })
    expect(await counted(h, order.id)).toBe(false)
    expect(await netSalesRow(h, day, order.currency)).toEqual({
      ...before,
      orders_count: Number(before.orders_count) - 1,
      gross_sales: money(cents(before.gross_sales!) - order.total),
      net_sales: money(cents(before.net_sales!) - order.total)
    })
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("an order force-deleted after it was trashed (so only the trash listing had it) gets deleted_at", async () => {
    const order = state.orders.find((o) => o.status === "trash")!
    expect((await warehouseOrders(h)).get(order.id)).toMatchObject({ status: "trash", deleted: false })
    clock.advance(60_000)
    state.forceDeleteOrder(order.id)
    clock.advance(2_000)
    await h.sync()
    expect((await warehouseOrders(h)).get(order.id)?.deleted).toBe(true)
    await expectOrdersMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("a force-deleted order (and its refunds) get deleted_at and leave daily_net_sales", async () => {
    const order = state.orders.find((o) => o.status === "completed" && o.refundIds.length > 0 && sameDayOrders(o) >= 2)!
    const refundIds = [...order.refundIds]
    expect(await counted(h, order.id)).toBe(true)

    clock.advance(60_000)
    state.forceDeleteOrder(order.id)
    clock.advance(2_000)
    const summary = await h.sync()
    expect(summary?.streams.find((s) => s.stream === "orders")?.deleted).toBe(1)

    const orders = await warehouseOrders(h)
    expect(orders.get(order.id)?.deleted).toBe(true)
    const refunds = await warehouseRefunds(h)
    expect(refundIds.map((id) => refunds.get(id)?.deleted)).toEqual(refundIds.map(() => true))
    expect(await counted(h, order.id)).toBe(false)
    await expectOrdersMatchStore(h)
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("a 404 page from a proxy in the store's place is no proof: the order stays, the stream fails naming it, and the next sync settles it", async () => {
    const order = state.orders.find((o) => o.status === "completed" && o.refundIds.length === 0 && sameDayOrders(o) >= 2)!
    clock.advance(60_000)
    state.forceDeleteOrder(order.id)
    clock.advance(2_000)
    h.sim.setFaults([{ kind: "html404", pathPrefix: `/orders/${order.id}` }])
    const error = await failedSync(h.sync())
    h.sim.setFaults([])
    expect(error).toContain("orders: the store answered 404")
    expect(error).toContain(`/orders/${order.id}`)
    expect((await warehouseOrders(h)).get(order.id)?.deleted).toBe(false)
    clock.advance(60_000)
    await h.sync()
    expect((await warehouseOrders(h)).get(order.id)?.deleted).toBe(true)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("with nothing deleted, the deletion check costs one request per listing (a handful, whatever the store's size)", async () => {
    clock.advance(60_000)
    const before = h.sim.requests.length
    const summary = await h.sync({ streams: ["orders", "refunds"] })
    const used = h.sim.requests.length - before
    expect(summary?.streams.map((s) => [s.rows, s.deleted])).toEqual([[0, 0], [0, 0]])
    // store clock 1 + orders: 2 walks + 2 counts + refunds: 1 walk + 1 count = 7, for 900 orders.
    expect(used).toBeLessThanOrEqual(8)
  })

  it("a deleted refund (its order untouched) gets deleted_at and its day's refunds drop by its amount", async () => {
    const order = state.orders.find((o) => o.status === "completed" && o.refundIds.length === 1)!
    const refund = state.refundById.get(order.refundIds[0]!)!
    const day = localDay(refund.created, TZ)
    const before = (await netSalesRow(h, day, order.currency))!
    const orderModified = order.modified

    clock.advance(60_000)
    state.deleteRefund(order.id, refund.id)
    clock.advance(2_000)
    expect(order.modified).toBe(orderModified)
    await h.sync()

    expect((await warehouseRefunds(h)).get(refund.id)?.deleted).toBe(true)
    expect((await warehouseOrders(h)).get(order.id)).toEqual({ id: order.id, status: "completed", at: orderModified, deleted: false })
    const after = await netSalesRow(h, day, order.currency)
    const refundsLeft = cents(before.refunds!) - refund.amount
    if (Number(before.orders_count) === 0 && refundsLeft === 0) expect(after).toBeUndefined()
    else {
      expect(after).toEqual({ ...before, refunds: money(refundsLeft), net_sales: money(cents(before.net_sales!) + refund.amount) })
    }
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})

describe("deletions in a busy store, whose orders change after a run's upper bound", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let state: StoreState
  beforeAll(async () => {
    // A store clock 5 s ahead of what a run reads (STORE_SETTLE_SECONDS=5): a change a second before the run is past its bound.
    h = await makeHarness({ clock, timezone: TZ, data: { seed: 43, orders: 900, start: "2026-01-05", days: 90 } }, { settleSeconds: 5 })
    state = h.sim.state
    await h.sync()
  })
  afterAll(() => h.close())

  /** Orders changed a second before the sync: past its upper bound (now less 5 s), so they left their range in the store. */
  const changeJustBeforeSync = (orders: ReadonlyArray<OrderRecord>) => {
    clock.advance(60_000)
    for (const o of orders) state.updateOrder(o.id, { customer_note: `changed ${o.id}` })
    clock.advance(1_000)
  }
  const oldOrders = (n: number, skip = 0) => state.orders.filter((o) => o.status === "completed" && o.refundIds.length === 0).slice(skip, skip + n)

  it("orders changed after the run's bound cost the check a listing of them, not a bisection", async () => {
    changeJustBeforeSync(oldOrders(3))
    const before = h.sim.requests.length
    const summary = await h.sync({ streams: ["orders"] })
    const used = h.sim.requests.slice(before).map((r) => r.url)
    expect(summary?.streams.map((s) => [s.rows, s.deleted])).toEqual([[0, 0]])
    // store clock 1 + 2 walks + 2 counts, then the moved ids of both listings (2) and both counts asked again (2);
    // the bisection it replaced took 112 here (each changed order bisected down to a page, its ids listed, itself asked for).
    expect(used.length, used.join("\n")).toBeLessThanOrEqual(9)
  })

  it("a forced deletion is still found among orders changed after the run's bound, and those orders load on the next run", async () => {
    const [deleted, ...changed] = oldOrders(4, 3)
    clock.advance(60_000)
    state.forceDeleteOrder(deleted!.id)
    changeJustBeforeSync(changed)
    const summary = await h.sync({ streams: ["orders"] })
    expect(summary?.streams.find((s) => s.stream === "orders")?.deleted).toBe(1)
    const orders = await warehouseOrders(h)
    expect(orders.get(deleted!.id)?.deleted).toBe(true)
    expect(changed.map((o) => orders.get(o.id)?.deleted)).toEqual(changed.map(() => false))
    clock.advance(60_000)
    await h.sync()
    await expectOrdersMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})

describe("a store without the store-wide refunds list (before WooCommerce 9.0)", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, timezone: TZ, storeWideRefunds: false, data: { seed: 42, orders: 300, start: "2026-02-01", days: 60 } })
  })
  afterAll(() => h.close())

  it("a full sync reads refunds per order, of the orders with refunds alone, and matches the reference", async () => {
    await h.sync()
    expect(h.sim.requests.some((r) => r.url.startsWith("/wp-json/wc/v3/refunds") && r.status === 404)).toBe(true)
    const asked = h.sim.requests.map((r) => /\/orders\/(\d+)\/refunds/.exec(r.url)?.[1]).filter((id) => id !== undefined).map(Number)
    const refunded = h.sim.state.orders.filter((o) => o.refundIds.length > 0).map((o) => o.id)
    expect(refunded.length).toBeLessThan(h.sim.state.orders.length / 2)
    expect(asked.sort((a, b) => a - b)).toEqual(refunded.sort((a, b) => a - b))
    expect(h.sim.state.refunds.length).toBeGreaterThan(10)
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("a new refund (and a new order refunded at once) is picked up through its order by the next sync", async () => {
    const state = h.sim.state
    const order = state.orders.find((o) => o.status === "completed" && o.refundIds.length === 0)!
    clock.advance(60_000)
    const refund = state.createRefund(order.id, { amount: "3.25", reason: "late" })
    const fresh = state.createOrder({ status: "completed", currency: "USD", line_items: [{ product_id: state.products[0]!.id, quantity: 2 }] })
    const freshRefund = state.createRefund(fresh.id, { amount: "1.00" })
    clock.advance(2_000)
    await h.sync()
    const refunds = await warehouseRefunds(h)
    expect(refunds.get(refund.id)).toMatchObject({ orderId: order.id, amountCents: 325, deleted: false })
    expect(refunds.get(freshRefund.id)).toMatchObject({ orderId: fresh.id, amountCents: 100, deleted: false })
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("a refund whose per-order read failed is read by the next sync: its order lists a refund the warehouse lacks", async () => {
    const order = h.sim.state.orders.find((o) => o.status === "completed" && o.refundIds.length === 0)!
    clock.advance(60_000)
    const refund = h.sim.state.createRefund(order.id, { amount: "7.50", reason: "damaged" })
    clock.advance(2_000)
    // The order is loaded, then every per-order refund list fails: the order's cursor has moved past it.
    h.sim.setFaults([{ kind: "503", pathPrefix: "/orders/" }])
    expect(await failedSync(h.sync({ streams: ["orders", "refunds"] }))).toMatch(/refunds: .*503/)
    h.sim.setFaults([])
    expect((await warehouseRefunds(h)).has(refund.id)).toBe(false)
    clock.advance(60_000)
    await h.sync()
    expect((await warehouseRefunds(h)).get(refund.id)).toMatchObject({ orderId: order.id, amountCents: 750, deleted: false })
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("a deleted refund, which does not touch its order, is marked deleted by the periodic full pass", async () => {
    const refund = h.sim.state.refunds.find((r) => h.sim.state.orders.some((o) => o.id === r.orderId && o.status === "completed"))!
    clock.advance(60_000)
    h.sim.state.deleteRefund(refund.orderId, refund.id)
    clock.advance(2_000)
    await h.sync()
    expect((await warehouseRefunds(h)).get(refund.id)?.deleted).toBe(false)
    clock.advance(25 * 3600_000)
    await h.sync()
    expect((await warehouseRefunds(h)).get(refund.id)?.deleted).toBe(true)
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})
