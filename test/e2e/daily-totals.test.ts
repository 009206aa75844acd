import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { COUNTED, ms } from "../support/scenarios.js"

/** The daily sums straight from the tables (the views' original definition), for comparison. */
const FROM_TABLES = `
  WITH o AS (SELECT created_day AS day, currency, count(*)::int AS orders_count, sum(total) AS gross FROM analytics.counted_orders
             WHERE store_id = $1 GROUP BY 1, 2),
       i AS (SELECT o.created_day AS day, o.currency, sum(li.quantity) AS items FROM analytics.counted_orders o
             JOIN store.order_line_items li ON li.store_id = o.store_id AND li.order_id = o.id WHERE o.store_id = $1 GROUP BY 1, 2),
       r AS (SELECT created_day AS day, currency, count(*)::int AS refunds_count, sum(amount) AS refunds FROM analytics.counted_refunds
             WHERE store_id = $1 GROUP BY 1, 2)
  SELECT day::text, currency, coalesce(orders_count, 0) AS orders_count, coalesce(gross, 0)::text AS gross,
         coalesce(items, 0)::text AS items, coalesce(refunds_count, 0) AS refunds_count, coalesce(refunds, 0)::text AS refunds
  FROM o LEFT JOIN i USING (day, currency) FULL JOIN r USING (day, currency) ORDER BY 1, 2`

const FROM_VIEW = `
  SELECT day::text, currency, orders_count, gross_sales::text AS gross, items::text, refunds_count, refunds::text
  FROM analytics.daily_sales WHERE store_id = $1 ORDER BY 1, 2`

describe("the daily sums kept for the views", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, timezone: "America/New_York", data: { seed: 41, orders: 600, start: "2026-03-01", days: 60 } })
    await h.sync()
  })
  afterAll(() => h.close())

  const dirtyDays = async () =>
    (await h.rows<{ n: number }>("SELECT count(*)::int AS n FROM analytics.daily_dirty WHERE store_id = $1", [STORE_ID]))[0]!.n

  it("are stored at the end of a run and equal the sums from the tables", async () => {
    expect(await dirtyDays()).toBe(0)
    const [stored] = await h.rows<{ n: number }>("SELECT count(*)::int AS n FROM analytics.daily_totals WHERE store_id = $1", [STORE_ID])
    expect(stored!.n).toBeGreaterThan(30)
    expect(await h.rows(FROM_VIEW, [STORE_ID])).toEqual(await h.rows(FROM_TABLES, [STORE_ID]))
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("follow any write at once, a sync or not: the days it touches are computed from the tables until the next run stores them", async () => {
    // Three kinds of write, each alone: a line's quantity, an order's status (its refunds stop counting), a refund's deletion.
    const [withLines, refunded, other] = h.sim.state.orders.filter((o) => COUNTED.has(o.status) && o.refundIds.length > 0)
    const writes: Array<[string, unknown[]]> = [
      ["UPDATE store.order_line_items SET quantity = quantity + 5 WHERE store_id = $1 AND order_id = $2", [STORE_ID, withLines!.id]],
      ["UPDATE store.orders SET status = 'cancelled' WHERE store_id = $1 AND id = $2", [STORE_ID, refunded!.id]],
      ["DELETE FROM store.refunds WHERE store_id = $1 AND id = $2", [STORE_ID, other!.refundIds[0]]]
    ]
    for (const [text, params] of writes) {
      const before = await h.rows(FROM_VIEW, [STORE_ID])
      await h.rows(text, params)
      expect(await dirtyDays()).toBeGreaterThan(0)
      const fromTables = await h.rows(FROM_TABLES, [STORE_ID])
      expect(fromTables).not.toEqual(before)
      expect(await h.rows(FROM_VIEW, [STORE_ID])).toEqual(fromTables)
      await h.rows("SELECT analytics.refresh_daily_totals($1)", [STORE_ID])
      expect(await dirtyDays()).toBe(0)
      expect(await h.rows(FROM_VIEW, [STORE_ID])).toEqual(fromTables)
    }
  })
})
