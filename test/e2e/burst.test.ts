import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import type { RequestInfo } from "../../src/simulator/store/app.js"
import { type Harness, makeHarness } from "../support/harness.js"
import { expectOrdersMatchStore, failedSync, ms, streamState, warehouseOrders } from "../support/scenarios.js"

const gmt = (second: number) => new Date(second * 1000).toISOString().slice(0, 19)

describe("bursts: hundreds of orders sharing one date_modified second, across page boundaries", () => {
  const clock = manualClock(ms("2026-06-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    // 1,200 orders: the generator also adds one bulk edit of 250 orders sharing a second.
    h = await makeHarness({ clock, timezone: "America/New_York", data: { seed: 21, orders: 1200, start: "2026-01-05", days: 90 } })
  })
  afterAll(() => h.close())

  it("loads a generated store whose history holds a 250-order bulk edit", async () => {
    const bySecond = new Map<number, number>()
    for (const o of h.sim.state.orders) bySecond.set(o.modified, (bySecond.get(o.modified) ?? 0) + 1)
    expect(Math.max(...bySecond.values())).toBeGreaterThan(100)
    await h.sync()
    await expectOrdersMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("a bulk edit of 350 orders (more than 3 pages of 100) in one second: every one is reloaded with the new date_modified", async () => {
    const state = h.sim.state
    // Every 3rd order (live and trashed alike), 350 of them, so they are spread over the whole history.
    const ids = state.orders.map((o) => o.id).sort((a, b) => a - b).filter((_, i) => i % 3 === 0).slice(0, 350)
    expect(ids).toHaveLength(350)
    clock.advance(60_000)
    const touchedAt = state.now()
    state.bulkTouchOrders(ids)
    clock.advance(2_000)

    const summary = await h.sync()
    const orders = summary!.streams.find((s) => s.stream === "orders")!
    expect(orders.error).toBeUndefined()
    // Every touched order once (no looping over the shared second), nothing else changed.
    expect(orders.rows).toBeGreaterThanOrEqual(350)
    expect(orders.rows).toBeLessThan(700)

    const ours = await warehouseOrders(h)
    const stale = ids.filter((id) => ours.get(id)?.at !== touchedAt || ours.get(id)?.deleted !== false)
    expect(stale).toEqual([])
    await expectOrdersMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})

describe("bursts at the cursor, with per_page 10", () => {
  // Well after the generated history (refunds come up to 40 days after their order), so nothing is in the future.
  const clock = manualClock(ms("2026-07-15T12:00:00Z"))
  let h: Harness
  let hook: ((info: RequestInfo) => void) | undefined
  beforeAll(async () => {
    h = await makeHarness(
      { clock, timezone: "America/New_York", data: { seed: 22, orders: 300, bursts: 0, start: "2026-03-01", days: 60 }, onRequest: (info) => hook?.(info) },
      { perPage: 10 }
    )
    await h.sync()
    await expectOrdersMatchStore(h)
  })
  afterAll(() => h.close())

  /** Orders created a second before, 35 touched + new + edited orders in one second, and orders a second after. */
  const burstAround = () => {
    const state = h.sim.state
    clock.advance(60_000)
    const before = [1, 2, 3].map(() => state.createOrder({ status: "completed", currency: "USD", line_items: [{ product_id: state.products[0]!.id, quantity: 1 }] }))
    clock.advance(1_000)
    const second = state.now()
    const live = state.orders.filter((o) => o.status !== "trash" && o.modified < second - 1)
    const touched = live.filter((_, i) => i % 7 === 3).slice(0, 35).map((o) => o.id)
    expect(touched).toHaveLength(35)
    state.bulkTouchOrders(touched)
    const created = [1, 2, 3, 4].map(() => state.createOrder({ status: "processing", currency: "EUR", line_items: [{ product_id: state.products[1]!.id, quantity: 2 }] }))
    const cancelled = live.find((o) => o.status === "completed" && !touched.includes(o.id))!
    state.updateOrder(cancelled.id, { status: "cancelled" })
    clock.advance(1_000)
    const after = [1, 2].map(() => state.createOrder({ status: "on-hold", currency: "GBP", line_items: [{ product_id: state.products[2]!.id, quantity: 1 }] }))
    clock.advance(3_000)
    const atSecond = [...touched, ...created.map((o) => o.id), cancelled.id]
    expect(state.orders.filter((o) => o.modified === second)).toHaveLength(atSecond.length)
    return { second, atSecond, all: [...before, ...after].map((o) => o.id).concat(atSecond) }
  }

  it("a burst of 35 sharing a second with other new and edited rows, a second after other rows: all loaded, net sales match", async () => {
    const { second, atSecond, all } = burstAround()
    await h.sync()
    const ours = await warehouseOrders(h)
    expect(atSecond.filter((id) => ours.get(id)?.at !== second)).toEqual([])
    expect(all.filter((id) => ours.get(id) === undefined)).toEqual([])
    await expectOrdersMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("rows written in the second the run starts wait for the next run, together with rows written later in that second", async () => {
    const state = h.sim.state
    clock.advance(60_000 + 400)
    const second = state.now()
    const line = [{ product_id: state.products[0]!.id, quantity: 1 }]
    const early = [1, 2, 3].map(() => state.createOrder({ status: "completed", currency: "USD", line_items: line }).id)
    await h.sync()
    const first = await warehouseOrders(h)
    expect(early.filter((id) => first.has(id))).toEqual([])
    clock.advance(300)
    expect(state.now()).toBe(second)
    const late = [1, 2].map(() => state.createOrder({ status: "completed", currency: "USD", line_items: line }).id)
    clock.advance(1_000)
    await h.sync()
    const ours = await warehouseOrders(h)
    expect([...early, ...late].filter((id) => ours.get(id)?.at !== second)).toEqual([])
    await expectOrdersMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("a run that stops with a page boundary in the middle of a burst second keeps its cursor before that second, and the next reads it whole", async () => {
    const { second, atSecond, all } = burstAround()
    // As soon as the walk reads the burst second again (a page ended inside it), /orders starts failing.
    hook = ({ path, query }) => {
      if (path === "/orders" && query.get("orderby") === "modified" && query.get("status") === "any" && query.get("modified_after") === gmt(second - 1)) {
        h.sim.setFaults([{ kind: "503", pathPrefix: "/orders" }])
        hook = undefined
      }
    }
    const error = await failedSync(h.sync())
    expect(error).toMatch(/orders/)
    expect(error).toMatch(/503/)
    const cursor = (await streamState(h)).find((s) => s.stream === "orders")!
    // The store gives a second's rows in any order: a page ending inside a second proves only the seconds before it.
    expect(cursor.cursor_at).toBe(second - 1)
    expect(cursor.cursor_id).toBeNull()
    const ours = await warehouseOrders(h)
    const loadedOfSecond = atSecond.filter((id) => ours.get(id)?.at === second)
    expect(loadedOfSecond.length).toBeGreaterThan(0)
    expect(loadedOfSecond.length).toBeLessThan(atSecond.length)

    h.sim.setFaults([])
    clock.advance(1_000)
    await h.sync()
    const now = await warehouseOrders(h)
    expect(atSecond.filter((id) => now.get(id)?.at !== second)).toEqual([])
    expect(all.filter((id) => now.get(id) === undefined)).toEqual([])
    await expectOrdersMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})
