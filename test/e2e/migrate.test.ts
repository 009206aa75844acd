import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgLayer } from "../../src/warehouse/database.js"
import { migrate, models } from "../../src/warehouse/migrate.js"
import { sqlFolder } from "../../src/warehouse/sql-files.js"
import { freshDatabase, sqlRows } from "../support/database.js"

describe("migrate", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    db = await freshDatabase()
  })
  afterAll(() => db.drop())

  const run = () => Effect.runPromise(migrate.pipe(Effect.provide(pgLayer(Redacted.make(db.url)))))

  it("creates the schema once and is idempotent", async () => {
    const first = await run()
    const all = sqlFolder("migrations").map((m) => m.name)
    expect(all[0]).toBe("001_store_schema")
    expect(first.applied).toEqual(all)
    const second = await run()
    expect(second.applied).toEqual([])
    const tables = await sqlRows<{ t: string }>(db.url, `SELECT table_schema || '.' || table_name AS t FROM information_schema.tables
      WHERE table_schema IN ('store', 'sync', 'analytics') ORDER BY 1`)
    expect(tables.map((r) => r.t)).toEqual(expect.arrayContaining([
      "analytics.daily_net_sales", "analytics.daily_sales", "analytics.sales_report_reconciliation",
      "store.orders", "store.order_line_items", "store.order_tax_lines", "store.order_shipping_lines",
      "store.order_fee_lines", "store.order_coupon_lines", "store.refunds", "store.refund_line_items",
      "store.customers", "store.products", "store.product_variations", "store.sales_report_daily",
      "sync.state", "sync.runs"
    ]))
  })

  it("gives daily_net_sales exactly the contract's columns and types", async () => {
    await run()
    const cols = await sqlRows<{ column_name: string; data_type: string }>(db.url, `SELECT column_name, data_type FROM information_schema.columns
      WHERE table_schema = 'analytics' AND table_name = 'daily_net_sales' ORDER BY ordinal_position`)
    expect(cols).toEqual([
      { column_name: "store_id", data_type: "text" },
      { column_name: "day", data_type: "date" },
      { column_name: "currency", data_type: "text" },
      { column_name: "orders_count", data_type: "integer" },
      { column_name: "gross_sales", data_type: "numeric" },
      { column_name: "refunds", data_type: "numeric" },
      { column_name: "net_sales", data_type: "numeric" }
    ])
  })

  it("lists every model in the manifest once, each file creating the one object it is named after", () => {
    const listed = models()
    expect(listed.map((m) => m.name).sort()).toEqual(sqlFolder("models").map((m) => m.name))
    expect(new Set(listed.map((m) => m.name)).size).toBe(listed.length)
    for (const m of listed) {
      expect(m.text, m.name).toMatch(/^-- /)
      expect(m.text.match(/^CREATE .*$/gm), m.name).toEqual([expect.stringMatching(
        new RegExp(`^CREATE OR REPLACE (VIEW|FUNCTION) ${m.name.replace(".", "\\.")}\\b`)
      )])
    }
  })

  it("re-creates the models only after applying a migration or when they changed", async () => {
    await run()
    const comment = async () =>
      (await sqlRows<{ c: string }>(db.url, "SELECT obj_description('analytics.daily_net_sales'::regclass) AS c"))[0]!.c
    const original = await comment()
    await sqlRows(db.url, "COMMENT ON VIEW analytics.daily_net_sales IS 'changed by hand'")
    expect((await run()).modelsRefreshed).toBe(false)
    expect(await comment()).toBe("changed by hand")
    await sqlRows(db.url, "UPDATE public.shopsync_models SET digest = 'the digest of older models'")
    expect((await run()).modelsRefreshed).toBe(true)
    expect(await comment()).toBe(original)
    expect((await run()).modelsRefreshed).toBe(false)
  })

  it("005 carries an existing customers full-scan time over to lastFullPass, so an upgrade forces no extra scan", async () => {
    await run()
    await sqlRows(db.url, `INSERT INTO sync.state (store_id, stream, details) VALUES
      ('old', 'customers', '{"lastFullScan": 1780000000}'), ('old', 'orders', '{"slices": {}}')`)
    await sqlRows(db.url, "DELETE FROM public.shopsync_migrations WHERE version = '005_customers_full_pass'")
    expect((await run()).applied).toEqual(["005_customers_full_pass"])
    const state = await sqlRows<{ stream: string; details: unknown }>(db.url,
      "SELECT stream, details FROM sync.state WHERE store_id = 'old' ORDER BY stream")
    expect(state).toEqual([
      { stream: "customers", details: { lastFullPass: 1780000000 } },
      { stream: "orders", details: { slices: {} } }
    ])
  })

  it("survives two migrators starting at once", async () => {
    const other = await freshDatabase()
    try {
      const layer = pgLayer(Redacted.make(other.url))
      const results = await Promise.all([1, 2].map(() => Effect.runPromise(migrate.pipe(Effect.provide(layer)))))
      expect(results.map((r) => r.applied.length).sort()).toEqual([0, sqlFolder("migrations").length])
      expect(results.map((r) => r.modelsRefreshed).sort()).toEqual([false, true])
    } finally {
      await other.drop()
    }
  })
})
