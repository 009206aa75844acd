import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness } from "../support/harness.js"
import { expectOrdersMatchStore, expectRefundsMatchStore, localDay, ms, runStatuses, sec, streamState, warehouseOrders, warehouseRefunds } from "../support/scenarios.js"

const TZ = "America/New_York"
const SINCE = "2026-02-10"
const UNTIL = "2026-02-16"
const DAY = 86_400
const inWindow = (epochSeconds: number) => {
  const day = localDay(epochSeconds, TZ)
  return day >= SINCE && day <= UNTIL
}

describe("backfill of a window of local days into a fresh database", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, timezone: TZ, data: { seed: 81, orders: 1500, start: "2026-01-05", days: 90 } })
    await h.sync({ mode: { kind: "backfill", since: SINCE, until: UNTIL } })
  })
  afterAll(() => h.close())

  it("loads every order and refund created in the window, and nothing from well outside it", async () => {
    const state = h.sim.state
    const orders = await warehouseOrders(h)
    const wanted = state.orders.filter((o) => inWindow(o.created))
    expect(wanted.length).toBeGreaterThan(50)
    expect(wanted.filter((o) => orders.get(o.id)?.status !== o.status || orders.get(o.id)?.deleted !== false).map((o) => o.id)).toEqual([])

    const created = new Map(state.orders.map((o) => [o.id, o.created]))
    const tooOld = sec(`${SINCE}T00:00:00Z`) - 2 * DAY
    const tooNew = sec(`${UNTIL}T00:00:00Z`) + 3 * DAY
    const outside = [...orders.keys()].filter((id) => created.get(id)! < tooOld || created.get(id)! >= tooNew)
    expect(outside).toEqual([])
    expect(orders.size).toBeLessThan(wanted.length * 2)

    const refunds = await warehouseRefunds(h)
    const wantedRefunds = state.refunds.filter((r) => inWindow(r.created))
    expect(wantedRefunds.length).toBeGreaterThan(0)
    expect(wantedRefunds.filter((r) => refunds.get(r.id)?.deleted !== false).map((r) => r.id)).toEqual([])
  })

  it("the window's days have the reference's order counts and gross sales", async () => {
    const pick = (rows: Array<Record<string, string | number>>) =>
      rows.filter((r) => String(r.day) >= SINCE && String(r.day) <= UNTIL).map((r) => [r.day, r.currency, r.orders_count, r.gross_sales])
    const expected = pick(h.expectedNetSales())
    expect(expected.length).toBeGreaterThanOrEqual(7)
    expect(pick(await h.netSales())).toEqual(expected)
  })

  it("records a backfill run and moves no incremental cursor", async () => {
    expect((await runStatuses(h)).map((r) => [r.command, r.status])).toEqual([["backfill", "succeeded"]])
    const cursors = (await streamState(h)).filter((s) => s.cursor_at !== null || s.cursor_id !== null).map((s) => s.stream)
    expect(cursors.filter((s) => ["orders", "orders.trash", "refunds", "products", "products.trash"].includes(s))).toEqual([])
  })

  it("a normal sync afterwards converges to the reference", async () => {
    clock.advance(60_000)
    await h.sync()
    await expectOrdersMatchStore(h)
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
    const cursor = (await streamState(h)).find((s) => s.stream === "orders")
    expect(cursor?.cursor_at).not.toBeNull()
  })
})
