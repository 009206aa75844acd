import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgLayer } from "../../src/warehouse/database.js"
import { migrate, models } from "../../src/warehouse/migrate.js"
import { sqlFolder } from "../../src/warehouse/sql-files.js"
import { freshDatabase, sqlRows } from "../support/database.js"

/**
 * A warehouse as the migrator before sql/models left it: the six migrations recorded, the views and functions
 * created (the models are the old sql/analytics/ split one object per file: same SQL), no record of models.
 */
const previousRelease = async (url: string) => {
  await sqlRows(url, "CREATE TABLE public.shopsync_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
  for (const m of sqlFolder("migrations").filter((m) => m.name <= "006_live_rows")) {
    await sqlRows(url, m.text)
    await sqlRows(url, "INSERT INTO public.shopsync_migrations (version) VALUES ($1)", [m.name])
  }
  for (const m of models().filter((m) => !ADDED_SINCE.includes(m.name))) await sqlRows(url, m.text)
}

/** Models that release did not have: they read tables of later migrations (sync.store_registry, store.order_status_log). */
const ADDED_SINCE = ["analytics.customer_orders", "analytics.daily_product_sales", "analytics.customers_ltv",
  "analytics.customer_cohorts", "analytics.order_status_history", "analytics.freshness"]

/** Orders, lines, refunds, a customer and a store report: some days' sums stored, others dirty since. */
const someSales = async (url: string) => {
  const order = (id: number, status: string, local: string, total: string, email: string) =>
    sqlRows(url, `INSERT INTO store.orders (store_id, id, status, currency, date_created, date_created_local, date_modified, total,
      shipping_total, total_tax, billing_email, billing, doc) VALUES ('s', $1, $2, 'EUR', $3::timestamp AT TIME ZONE 'UTC', $3,
      $3::timestamp AT TIME ZONE 'UTC', $4, '5.00', '1.50', $5, jsonb_build_object('first_name', 'Ann', 'city', 'Lyon'), '{}')`,
      [id, status, local, total, email])
  await order(1, "completed", "2026-03-01 10:00", "30.00", "ann@example.com")
  await order(2, "processing", "2026-03-01 23:30", "12.50", "Bob@example.com ")
  await order(3, "cancelled", "2026-03-02 09:00", "99.00", "ann@example.com")
  await sqlRows(url, `INSERT INTO store.order_line_items (store_id, id, order_id, quantity, doc) VALUES
    ('s', 11, 1, 2, '{}'), ('s', 12, 2, 1, '{}'), ('s', 13, 3, 4, '{}')`)
  await sqlRows(url, `INSERT INTO store.customers (store_id, id, email, first_name, doc, doc_hash) VALUES
    ('s', 7, 'ann@example.com', 'Ann', '{}', 'h')`)
  await sqlRows(url, `INSERT INTO store.sales_report_daily (store_id, day, sales, orders, items, tax, shipping, discount, customers, refunds)
    VALUES ('s', '2026-03-01', 42.50, 2, 3, 3, 10, 0, 2, 0)`)
  await sqlRows(url, "SELECT analytics.refresh_daily_totals('s')")
  await order(4, "completed", "2026-03-03 08:00", "20.00", "carl@example.com")
  await sqlRows(url, `INSERT INTO store.refunds (store_id, id, order_id, date_created, date_created_local, amount, doc) VALUES
    ('s', 21, 1, '2026-03-03 12:00+00', '2026-03-03 12:00', 10.00, '{}')`)
  // The refunds the documents list, as a shop may send them (migration 025 keeps the integer ids).
  await sqlRows(url, `UPDATE store.orders SET doc = CASE id WHEN 1 THEN '{"refunds": [{"id": 21}, {"id": "none"}]}'::jsonb
    WHEN 4 THEN '{"refunds": "none"}'::jsonb ELSE doc END`)
}

/**
 * Each view's rows as objects of each column's JSON text (exact numerics), in the order of the rows' text (a column
 * added at a view's end keeps that order).
 */
const viewRows = async (url: string) => {
  const views = ["counted_orders", "counted_refunds", "daily_totals_current", "daily_net_sales", "daily_sales",
    "sales_report_reconciliation", "marketing_contacts"]
  const rows: Record<string, Array<Record<string, string>>> = {}
  for (const v of views) {
    rows[v] = (await sqlRows<{ j: Array<Record<string, string>> }>(url,
      `SELECT coalesce(json_agg((SELECT json_object_agg(c.key, c.value::text) FROM json_each(to_json(v)) c) ORDER BY v::text), '[]') AS j
       FROM analytics.${v} v`))[0]!.j
  }
  return rows
}

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
    expect(listed.map((m) => `${m.layer}/${m.name}`).sort()).toEqual(
      ["intermediate", "marts", "sync"].flatMap((layer) => sqlFolder(`models/${layer}`).map((m) => `${layer}/${m.name}`)).sort())
    expect(sqlFolder("models")).toEqual([])
    expect(new Set(listed.map((m) => m.name)).size).toBe(listed.length)
    for (const m of listed) {
      expect(m.text, m.name).toMatch(/^-- /)
      expect(m.text.match(/^CREATE .*$/gm), m.name).toEqual([expect.stringMatching(
        new RegExp(`^CREATE OR REPLACE (VIEW|FUNCTION) ${m.name.replace(".", "\\.")}\\b`)
      )])
    }
  })

  it("layers the models: intermediate ones read no mart, so a mart can change without its inputs moving", () => {
    const listed = models()
    const marts = listed.filter((m) => m.layer === "marts").map((m) => m.name)
    expect(marts).toEqual(expect.arrayContaining(["analytics.daily_net_sales", "analytics.daily_sales"]))
    for (const m of listed.filter((m) => m.layer === "intermediate")) {
      expect(marts.filter((mart) => m.text.includes(mart)), m.name).toEqual([])
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

  it("upgrades a warehouse of the previous release: the models are re-created once and every view answers the same, new columns aside", async () => {
    const old = await freshDatabase()
    try {
      await previousRelease(old.url)
      await someSales(old.url)
      const before = await viewRows(old.url)
      expect(before.daily_net_sales).toHaveLength(2)
      expect(before.marketing_contacts).toHaveLength(3)
      const migrateOld = () => Effect.runPromise(migrate.pipe(Effect.provide(pgLayer(Redacted.make(old.url)))))
      const upgrade = await migrateOld()
      expect(upgrade.applied).toEqual(sqlFolder("migrations").map((m) => m.name).filter((name) => name > "006_live_rows"))
      expect(upgrade.modelsRefreshed).toBe(true)
      // Every row and value as before; a view may have gained columns (counted_orders has every column of store.orders).
      const after = await viewRows(old.url)
      for (const [view, rows] of Object.entries(before)) {
        expect(after[view], view).toHaveLength(rows.length)
        expect(after[view], view).toMatchObject(rows)
      }
      expect((await migrateOld()).modelsRefreshed).toBe(false)
      expect(await sqlRows(old.url, "SELECT id::int, refund_ids::text[] FROM store.orders ORDER BY id")).toEqual(
        [{ id: 1, refund_ids: ["21"] }, { id: 2, refund_ids: [] }, { id: 3, refund_ids: [] }, { id: 4, refund_ids: [] }])
    } finally {
      await old.drop()
    }
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
