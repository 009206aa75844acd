import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { expectOrdersMatchStore, expectRefundsMatchStore, ms } from "../support/scenarios.js"

/** Each row's version (xmin): a row rewritten by a later transaction has another one. */
const versions = async (h: Harness, table: string, key = "id") =>
  new Map((await h.rows<{ id: number; v: string }>(`SELECT ${key}::int AS id, xmin::text AS v FROM store.${table} WHERE store_id = $1`, [STORE_ID]))
    .map((r) => [r.id, r.v]))

const lineVersions = async (h: Harness, orderIds: ReadonlyArray<number>) =>
  (await h.rows<{ v: string }>("SELECT xmin::text AS v FROM store.order_line_items WHERE store_id = $1 AND order_id = ANY($2::bigint[])", [STORE_ID, orderIds]))
    .map((r) => r.v)

describe("a store read again writes only the documents that changed", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let before: Record<"orders" | "refunds" | "products", Map<number, string>>
  const changed: number[] = []
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 14, orders: 400, start: "2026-01-05", days: 40 } })
    await h.sync()
    before = { orders: await versions(h, "orders"), refunds: await versions(h, "refunds"), products: await versions(h, "products") }
    clock.advance(60_000)
    for (const o of h.sim.state.orders.filter((o) => o.status === "processing").slice(0, 5)) {
      h.sim.state.updateOrder(o.id, { status: "completed" })
      changed.push(o.id)
    }
    clock.advance(60_000)
    // A backfill of every day re-reads every order, refund and product, changed or not.
    await h.sync({ mode: { kind: "backfill", since: "2026-01-01", until: "2026-07-01" } })
  })
  afterAll(() => h.close())

  it("leaves the rows of unchanged documents, and their lines, as they were", async () => {
    expect(changed.length).toBe(5)
    const orders = await versions(h, "orders")
    const untouched = [...before.orders.keys()].filter((id) => !changed.includes(id))
    expect(untouched.length).toBe(h.sim.state.orders.length - 5)
    expect(untouched.filter((id) => orders.get(id) !== before.orders.get(id))).toEqual([])
    const oldLines = new Set(before.orders.values())
    expect((await lineVersions(h, untouched)).filter((v) => !oldLines.has(v))).toEqual([])
    const refunds = await versions(h, "refunds")
    expect(refunds.size).toBe(h.sim.state.refunds.length)
    expect([...refunds].filter(([id, v]) => before.refunds.get(id) !== v)).toEqual([])
    const products = await versions(h, "products")
    expect(products.size).toBeGreaterThan(0)
    expect([...products].filter(([id, v]) => before.products.get(id) !== v)).toEqual([])
  })

  it("rewrites the changed orders with their lines, as the store has them", async () => {
    const orders = await versions(h, "orders")
    expect(changed.filter((id) => orders.get(id) === before.orders.get(id))).toEqual([])
    const lines = await h.rows<{ order_id: number; n: number }>(
      "SELECT order_id::int, count(*)::int AS n FROM store.order_line_items WHERE store_id = $1 AND order_id = ANY($2::bigint[]) GROUP BY 1 ORDER BY 1", [STORE_ID, changed])
    const expected = h.sim.state.orders.filter((o) => changed.includes(o.id)).map((o) => ({ order_id: o.id, n: o.line_items.length })).sort((a, b) => a.order_id - b.order_id)
    expect(lines).toEqual(expected)
    const oldVersions = new Set(before.orders.values())
    expect((await lineVersions(h, changed)).filter((v) => oldVersions.has(v))).toEqual([])
    await expectOrdersMatchStore(h)
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})
