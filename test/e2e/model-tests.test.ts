import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { sqlFile } from "../../src/warehouse/sql-files.js"
import { describeFailure, modelTests, runModelTests } from "../../src/warehouse/model-tests.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { COUNTED, ms } from "../support/scenarios.js"

/**
 * The marts' declared tests (sql/models/tests/) against a warehouse synced from the simulator: across a DST change,
 * with refunds on other days than their orders, then after writes a run has not stored yet. Each test is an `it`
 * of its own, so a failure names it and shows the offending rows.
 */
describe("the models' declared tests", () => {
  const tests = modelTests()
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({
      clock: manualClock(ms("2026-05-01T12:00:00Z")),
      timezone: "America/New_York",
      data: { seed: 29, orders: 400, start: "2026-02-20", days: 40 }
    })
    await h.sync()
    // Writes after the run: the days they touch are dirty (computed now) until the next run stores them.
    const [order, refunded] = h.sim.state.orders.filter((o) => COUNTED.has(o.status) && o.refundIds.length > 0)
    await h.rows("UPDATE store.order_line_items SET quantity = quantity + 2 WHERE store_id = $1 AND order_id = $2", [STORE_ID, order!.id])
    await h.rows("UPDATE store.orders SET status = 'cancelled' WHERE store_id = $1 AND id = $2", [STORE_ID, refunded!.id])
  })
  afterAll(() => h?.close())

  it("declares unique (store_id, day, currency) and not-null columns on the daily marts", () => {
    const names = tests.map((t) => t.name)
    for (const mart of ["analytics.daily_net_sales", "analytics.daily_sales"]) {
      expect(names).toContain(`${mart}: unique (store_id, day, currency)`)
      expect(names).toContain(`${mart}: not_null net_sales`)
    }
    expect(new Set(names).size).toBe(names.length)
  })

  it.each(tests.map((t) => [t.name, t] as const))("%s", async (_, test) => {
    const failures = await h.run(runModelTests([test]))
    expect(failures.map(describeFailure).join("\n")).toBe("")
  })

  it("fails, naming the test and the rows, when a mart is broken (a day counted twice)", async () => {
    const broken = sqlFile("models/marts/analytics.daily_net_sales").replace(
      "FROM analytics.daily_totals_current;",
      "FROM analytics.daily_totals_current UNION ALL (SELECT store_id, day, currency, orders_count, gross_sales, refunds, gross_sales - refunds FROM analytics.daily_totals_current LIMIT 1);"
    )
    expect(broken).not.toBe(sqlFile("models/marts/analytics.daily_net_sales"))
    await h.rows(broken)
    try {
      const failures = await h.run(runModelTests())
      expect(failures.map((f) => f.name)).toEqual([
        "analytics.daily_net_sales: unique (store_id, day, currency)",
        "daily_sales_extends_daily_net_sales"
      ])
      expect(describeFailure(failures[0]!)).toMatch(/: 1 row\n {2}\{"day": "\d{4}-\d\d-\d\d", "copies": 2, "currency": "[A-Z]{3}", "store_id": "test"\}/)
    } finally {
      await h.rows(sqlFile("models/marts/analytics.daily_net_sales"))
    }
    expect(await h.run(runModelTests())).toEqual([])
  })
})
