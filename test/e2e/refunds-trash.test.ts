import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, type StoreState } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness } from "../support/harness.js"
import { expectOrdersMatchStore, ms, warehouseRefunds } from "../support/scenarios.js"

/**
 * With the posts storage, WooCommerce trashes an order's refunds with it (they leave GET /refunds) and untrash
 * brings them back with their old date, behind the refunds' created cursor: seen on the real shop, where such a
 * refund and a deleted one cancelled out in the deletion check's counts and a day's refunds stayed wrong.
 */
describe("refunds trashed and restored with their order (posts storage)", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let state: StoreState
  /** The warehouse's live refunds are those GET /refunds lists: the refunds of orders not in the trash. */
  const expectListedRefunds = async () => {
    const live = [...(await warehouseRefunds(h)).values()].filter((r) => !r.deleted).map((r) => r.id)
    const listed = state.refunds.filter((r) => state.orderById.get(r.orderId)!.status !== "trash").map((r) => r.id)
    expect(live.sort((a, b) => a - b)).toEqual(listed.sort((a, b) => a - b))
  }
  beforeAll(async () => {
    h = await makeHarness({ clock, orderStorage: "posts", data: { seed: 43, orders: 400, start: "2026-03-01", days: 60 } })
    state = h.sim.state
    await h.sync()
    await expectListedRefunds()
  })
  afterAll(() => h.close())

  it("a refund restored with its order is loaded again, even when a deleted refund leaves the counts equal", async () => {
    const [restored, other] = state.orders.filter((o) => o.status === "completed" && o.refundIds.length > 0)
    const refundId = restored!.refundIds[0]!
    clock.advance(60_000)
    state.trashOrder(restored!.id)
    clock.advance(5_000)
    await h.sync()
    // The trashed order's refunds left the list: gone from the store's point of view, out of every daily figure.
    await expectListedRefunds()
    expect(await h.netSales()).toEqual(h.expectedNetSales())

    clock.advance(60_000)
    state.updateOrder(restored!.id, { status: "completed" })
    state.deleteRefund(other!.id, other!.refundIds[0]!)
    clock.advance(5_000)
    await h.sync()
    expect((await warehouseRefunds(h)).get(refundId)?.deleted).toBe(false)
    await expectOrdersMatchStore(h)
    await expectListedRefunds()
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})
