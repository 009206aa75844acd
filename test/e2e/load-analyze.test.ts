// A load of many days ends with an ANALYZE, so that the sums of its days are planned on statistics (without them,
// each day's sums scanned whole tables). It analyzes the columns those plans read, and no other: the rest is
// autovacuum's, which an ANALYZE of some columns leaves due (PostgreSQL resets a table's count of changes only when
// every column is analyzed). Autovacuum is off for the tables here, so what the test sees is the run's own ANALYZE.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness } from "../support/harness.js"
import { ms } from "../support/scenarios.js"

const TABLES = ["orders", "order_line_items", "refunds"]

describe("the ANALYZE that ends a load of many days", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 59, orders: 300, start: "2026-03-01", days: 90 } })
    for (const t of TABLES) await h.rows(`ALTER TABLE store.${t} SET (autovacuum_enabled = false)`)
    await h.sync()
  })
  afterAll(() => h.close())

  it("gives statistics to the columns the daily sums are planned on, and to no other", async () => {
    const analyzed = await h.rows<{ table: string; column: string }>(
      `SELECT tablename AS "table", attname AS "column" FROM pg_stats WHERE schemaname = 'store' AND tablename = ANY($1) ORDER BY 1, 2`,
      [TABLES])
    expect(analyzed).toEqual([
      ...["order_id", "store_id"].map((column) => ({ table: "order_line_items", column })),
      ...["created_day", "currency", "deleted_at", "id", "status", "store_id"].map((column) => ({ table: "orders", column })),
      ...["created_day", "deleted_at", "order_id", "store_id"].map((column) => ({ table: "refunds", column }))
    ])
  })
})
