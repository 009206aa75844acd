import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { RequestInfo } from "../../src/simulator/store/app.js"
import { manualClock, type StoreState } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness } from "../support/harness.js"
import { expectOrdersMatchStore, expectRefundsMatchStore, ms, warehouseOrders } from "../support/scenarios.js"

const gmt = (second: number) => new Date(second * 1000).toISOString().slice(0, 19)

/** The order a `status=any&orderby=modified&order=asc` walk reads the live orders in. */
const walkOrder = (state: StoreState) =>
  state.orders.filter((o) => o.status !== "trash").sort((a, b) => a.modified - b.modified || a.id - b.id)

const snapshot = (state: StoreState) => new Map(state.orders.map((o) => [o.id, { id: o.id, status: o.status, at: o.modified, deleted: false }]))

// One walk in order, and the same walk cut into four time slices walked at once.
describe.each([1, 4])("the store changes while the client pages through orders (STORE_CONCURRENCY=%i)", (concurrency) => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let hook: ((info: RequestInfo) => void) | undefined
  beforeAll(async () => {
    h = await makeHarness({
      clock,
      timezone: "America/New_York",
      data: { seed: 31, orders: 1500, start: "2026-01-05", days: 90 },
      onRequest: (info) => hook?.(info)
    }, { concurrency })
  })
  afterAll(() => h.close())

  it("updates ahead of and behind the cursor, new, trashed, force-deleted and bulk-touched orders: nothing unchanged is missed, and one more sync converges", async () => {
    const state = h.sim.state
    const original = snapshot(state)
    const sorted = walkOrder(state)
    expect(sorted.length).toBeGreaterThan(1200)
    const pick = (positions: number[]) => positions.map((p) => sorted[p]!)
    // Positions in the walk: in order, the 5th request comes after ~400 rows, so < 300 is behind, >= 800 ahead.
    // In slices, the first page (positions < 100) is committed before the first probe is sent.
    const behind = pick([20, 55, 90, 140, 210])
    const ahead = pick([820, 900, 1000, 1100, sorted.length - 5])
    const trashBehind = sorted[33]!
    const trashAhead = sorted[950]!
    const deletedBehind = sorted[60]!
    const deletedAhead = sorted[1050]!
    const touched = sorted.filter((_, i) => i % 10 === 7).map((o) => o.id)
    const taken = new Set([...behind, ...ahead, trashBehind, trashAhead, deletedBehind, deletedAhead].map((o) => o.id).concat(touched))
    const refunded = sorted.slice(850).find((o) => !taken.has(o.id) && o.status === "completed" && state.refundable(o) > 1000)!
    const changed = new Set([
      ...behind, ...ahead, trashBehind, trashAhead, deletedBehind, deletedAhead, refunded
    ].map((o) => o.id).concat(touched))
    const created: number[] = []

    let walkRequests = 0
    let fired = false
    hook = ({ path, query }) => {
      if (path !== "/orders" || query.get("status") !== "any" || query.get("orderby") !== "modified") return
      walkRequests++
      if (walkRequests !== 5 || fired) return
      fired = true
      // Time passes during the run: every write below lands after the frozen upper bound.
      clock.advance(1_000)
      const flip = (id: number, status: string) => state.updateOrder(id, { status })
      for (const o of [...behind, ...ahead]) flip(o.id, o.status === "completed" ? "cancelled" : "completed")
      for (let i = 0; i < 3; i++) created.push(state.createOrder({ status: "completed", currency: "USD", line_items: [{ product_id: state.products[i]!.id, quantity: 1 }] }).id)
      state.trashOrder(trashBehind.id)
      state.trashOrder(trashAhead.id)
      state.forceDeleteOrder(deletedBehind.id)
      state.forceDeleteOrder(deletedAhead.id)
      state.createRefund(refunded.id, { amount: "7.50", reason: "during the run" })
      clock.advance(1_000)
      state.bulkTouchOrders(touched.filter((id) => state.orderById.has(id)))
    }

    await h.sync()
    hook = undefined
    expect(fired).toBe(true)

    // Nothing that stayed unchanged throughout was missed or altered by the first sync.
    const ours = await warehouseOrders(h)
    const unchanged = [...original.values()].filter((o) => !changed.has(o.id))
    expect(unchanged.length).toBeGreaterThan(1000)
    const same = (o: { id: number; status: string; at: number }) => {
      const r = ours.get(o.id)
      return r !== undefined && r.status === o.status && r.at === o.at && !r.deleted
    }
    expect(unchanged.filter((o) => !same(o)).map((o) => o.id)).toEqual([])
    // The force-deleted order that was already loaded is found gone by the same run's deletion check.
    expect(ours.get(deletedBehind.id)?.deleted).toBe(true)
    // Rows that changed during the run were not marked deleted for leaving their old place.
    expect([...changed].filter((id) => state.orderById.has(id) && ours.get(id)?.deleted === true)).toEqual([])

    clock.advance(5_000)
    await h.sync()
    await expectOrdersMatchStore(h)
    await expectRefundsMatchStore(h)
    const after = await warehouseOrders(h)
    expect(after.get(trashBehind.id)?.status).toBe("trash")
    expect(after.get(trashAhead.id)?.status).toBe("trash")
    expect(after.get(deletedBehind.id)?.deleted).toBe(true)
    expect(after.get(deletedAhead.id)?.deleted ?? true).toBe(true)
    expect(created.filter((id) => after.get(id)?.deleted !== false)).toEqual([])
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})

describe("rows leave a burst second while that second is read page by page", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let hook: ((info: RequestInfo) => void) | undefined
  beforeAll(async () => {
    h = await makeHarness({
      clock,
      timezone: "America/New_York",
      data: { seed: 32, orders: 800, bursts: 1, burstSize: 250, start: "2026-01-05", days: 90 },
      onRequest: (info) => hook?.(info)
    })
  })
  afterAll(() => h.close())

  it("an edit and a forced delete on the first page shift unread rows onto it: the second is read again, none is lost", async () => {
    const state = h.sim.state
    const bySecond = new Map<number, number[]>()
    for (const o of state.orders) if (o.status !== "trash") bySecond.set(o.modified, [...(bySecond.get(o.modified) ?? []), o.id])
    const [second, ids] = [...bySecond].sort((a, b) => b[1].length - a[1].length)[0]!
    expect(ids.length).toBe(250)
    ids.sort((a, b) => a - b)
    const edited = ids[3]!
    const deleted = ids[7]!

    let fired = false
    hook = ({ path, query }) => {
      if (fired || path !== "/orders" || query.get("orderby") !== "id" || query.get("status") !== "any") return
      if (query.get("modified_after") !== gmt(second - 1) || query.get("page") !== "2") return
      fired = true
      clock.advance(1_000)
      state.updateOrder(edited, { customer_note: "edited while its second was read" })
      state.forceDeleteOrder(deleted)
    }
    await h.sync()
    hook = undefined
    expect(fired).toBe(true)

    const ours = await warehouseOrders(h)
    const stayed = ids.filter((id) => id !== edited && id !== deleted)
    expect(stayed.filter((id) => ours.get(id)?.at !== second || ours.get(id)?.deleted !== false)).toEqual([])

    // The order was deleted after the run's upper bound (the run's own count of the listing still held it): the
    // next sync's deletion check finds it.
    clock.advance(5_000)
    await h.sync()
    expect((await warehouseOrders(h)).get(deleted)?.deleted).toBe(true)
    await expectOrdersMatchStore(h)
    expect((await warehouseOrders(h)).get(edited)?.at).toBe(state.orderById.get(edited)!.modified)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})
