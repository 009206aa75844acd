import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, type StoreState } from "../../src/simulator/store/index.js"
import { heldRows } from "../../src/sync/reconcile/reconcile.js"
import { RESOURCES, type ResourceName, SPECS } from "../../src/sync/reconcile/resources.js"
import { runVerify } from "../../src/sync/reconcile/verify.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { forgetOrder, ms, warehouseOrders } from "../support/scenarios.js"

/** Pages a listing of `n` rows costs when consecutive pages share a row (listing.ts). */
const pages = (n: number) => (n <= 100 ? 1 : 1 + Math.ceil((n - 100) / 99))

describe("verify: the store's ids and dates against the warehouse's live rows", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let state: StoreState
  const verify = async (repair: boolean, resources: ReadonlyArray<ResourceName> = RESOURCES) => {
    clock.advance(2_000)
    const report = await h.run(runVerify({ resources, repair, waitForLock: false }))
    return Object.fromEntries(report!.resources.map((r) => [r.resource, r]))
  }
  const drift = (r: { missing: ReadonlyArray<number>; stale: ReadonlyArray<number>; gone: ReadonlyArray<number> }) => ({ missing: r.missing, stale: r.stale, gone: r.gone })
  const none = { missing: [], stale: [], gone: [] }
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 23, orders: 450, start: "2026-04-01", days: 60 } })
    state = h.sim.state
    // Some trash, so that both order listings have rows.
    for (const o of state.orders.filter((o) => o.status === "cancelled").slice(0, 3)) state.trashOrder(o.id)
    clock.advance(2_000)
    await h.sync()
  })
  afterAll(() => h.close())

  it("after a clean sync finds no drift, at the cost of the listing pages alone", async () => {
    const before = await h.requests()
    const found = await verify(false)
    for (const name of RESOURCES) expect([name, drift(found[name]!)]).toEqual([name, none])
    const trashed = state.orders.filter((o) => o.status === "trash").length
    const trashedProducts = state.products.filter((p) => p.status === "trash").length
    const expected = {
      orders: pages(state.orders.length - trashed) + pages(trashed),
      refunds: pages(state.refunds.length),
      products: pages(state.products.length - trashedProducts) + pages(trashedProducts),
      customers: pages(state.customers.length)
    }
    expect(Object.fromEntries(RESOURCES.map((r) => [r, found[r]!.requests]))).toEqual(expected)
    expect(found.orders!.listed).toBe(state.orders.length)
    // The store's clock: one request more.
    expect(await h.requests() - before).toBe(Object.values(expected).reduce((n, c) => n + c, 0) + 1)
  })

  it("a row deleted from the warehouse by hand is missing; --repair loads it back and the daily sums are the store's", async () => {
    const order = state.orders.find((o) => o.status === "completed")!
    await forgetOrder(h, order.id)
    expect(await h.netSales()).not.toEqual(h.expectedNetSales())
    expect(drift((await verify(false, ["orders"])).orders!)).toEqual({ ...none, missing: [order.id] })
    const repaired = (await verify(true, ["orders"])).orders!
    expect([drift(repaired), repaired.repaired]).toEqual([{ ...none, missing: [order.id] }, 1])
    expect(await h.netSales()).toEqual(h.expectedNetSales())
    expect(drift((await verify(false)).orders!)).toEqual(none)
  })

  it("a stale warehouse row (an older modified date and another total) is found and repaired", async () => {
    const order = state.orders.find((o) => o.status === "processing")!
    await h.rows(
      `UPDATE store.orders SET date_modified = date_modified - interval '3 days', total = total + 5,
              doc = jsonb_set(doc, '{total}', to_jsonb((total + 5)::text))
       WHERE store_id = $1 AND id = $2`, [STORE_ID, order.id])
    expect(await h.netSales()).not.toEqual(h.expectedNetSales())
    const found = (await verify(true, ["orders"])).orders!
    expect([drift(found), found.repaired]).toEqual([{ ...none, stale: [order.id] }, 1])
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("an order force-deleted in the store that the warehouse holds live is gone, confirmed by a 404, and marked deleted", async () => {
    const order = state.orders.find((o) => o.status === "completed" && o.refundIds.length === 0)!
    state.forceDeleteOrder(order.id)
    const found = (await verify(true, ["orders"])).orders!
    expect([drift(found), found.repaired]).toEqual([{ ...none, gone: [order.id] }, 1])
    expect((await warehouseOrders(h)).get(order.id)?.deleted).toBe(true)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("records each pass per resource in sync.reconciliations", async () => {
    const rows = await h.rows<{ resource: string; missing: number; gone_ids: string[]; repair: boolean }>(
      `SELECT resource, missing, gone_ids, repair FROM sync.reconciliations WHERE store_id = $1
       AND run_id = (SELECT max(run_id) FROM sync.reconciliations WHERE store_id = $1)`, [STORE_ID])
    expect(rows.map((r) => r.resource)).toEqual(["orders"])
    expect(rows[0]!.gone_ids.map(Number)).toHaveLength(1)
    expect(rows[0]!.repair).toBe(true)
  })

  it("a sync runs the pass when it is due, repairing, and its summary carries the drift", async () => {
    const order = state.orders.find((o) => o.status === "completed" && o.refundIds.length === 0)!
    await forgetOrder(h, order.id)
    clock.advance(2_000)
    const summary = await h.sync({ verifyHours: 0 })
    expect(summary?.drift).toEqual([{ resource: "orders", missing: [order.id], stale: [], gone: [], repaired: 1 }])
    expect(await h.netSales()).toEqual(h.expectedNetSales())
    // Not due again within the hours: no drift field, nothing listed.
    clock.advance(2_000)
    const before = await h.requests()
    const quiet = await h.sync({ verifyHours: 24 })
    expect(quiet?.drift).toBeUndefined()
    expect(await h.requests() - before).toBeLessThan(20)
  })

  it("reads the warehouse's live rows of an id range a chunk at a time, the chunks' and the range's edges included", async () => {
    const all = await h.rows<{ id: number; at: number; trash: boolean }>(
      `SELECT id::int AS id, extract(epoch FROM date_modified)::int AS at, status = 'trash' AS trash
       FROM store.orders WHERE store_id = $1 AND deleted_at IS NULL ORDER BY id`, [STORE_ID])
    expect(all.filter((r) => r.trash).length).toBeGreaterThan(0)
    const every = { after: -Infinity, through: Infinity }
    for (const chunk of [7, 1, all.length, all.length + 1]) expect([...(await h.run(heldRows(SPECS.orders, every, chunk))).values()]).toEqual(all)
    const [after, through] = [all[3]!.id, all[all.length - 4]!.id]
    const inside = all.filter((r) => r.id > after && r.id <= through)
    expect(inside).toHaveLength(all.length - 7)
    for (const chunk of [7, 1, inside.length, inside.length + 1]) expect([...(await h.run(heldRows(SPECS.orders, { after, through }, chunk))).values()]).toEqual(inside)
  })
})
