import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { ms } from "../support/scenarios.js"

/**
 * Every `doc` jsonb column of the store's tables: how PostgreSQL keeps it (attstorage 'e': out of line, uncompressed)
 * and how many of its values ANALYZE samples (attstattarget, NULL: the default).
 */
const DOC_COLUMNS = `
  SELECT c.oid::regclass::text AS "table", a.attstorage AS storage, a.attcompression AS compression, a.attstattarget AS "statsTarget"
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname IN ('store', 'sync') AND c.relkind = 'r' AND a.attname = 'doc' AND a.atttypid = 'jsonb'::regtype AND NOT a.attisdropped
  ORDER BY 1`

/** The addresses of orders and customers (jsonb objects), with how many of their values ANALYZE samples. */
const ADDRESS_COLUMNS = `
  SELECT c.oid::regclass::text AS "table", a.attname AS "column", a.attstattarget AS "statsTarget"
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
  WHERE c.oid IN ('store.orders'::regclass, 'store.customers'::regclass) AND a.attname IN ('billing', 'shipping')
  ORDER BY 1, 2`

describe("documents are stored without pglz (migration 015); documents and addresses are left out of ANALYZE (migrations 023, 024)", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 15, orders: 150, start: "2026-05-01", days: 30 } })
    await h.sync()
  })
  afterAll(() => h.close())

  it("every doc column is lz4 or uncompressed out of line", async () => {
    const columns = await h.rows<{ table: string; storage: string; compression: string }>(DOC_COLUMNS)
    expect(columns.map((c) => c.table)).toEqual(expect.arrayContaining(["store.orders", "store.refunds", "store.customers", "store.products"]))
    expect(columns.filter((c) => c.storage !== "e" && c.compression !== "l")).toEqual([])
  })

  it("ANALYZE builds no statistics of a document, and keeps the other columns'", async () => {
    const columns = await h.rows<{ table: string; statsTarget: number | null }>(DOC_COLUMNS)
    expect(columns.filter((c) => c.statsTarget !== 0)).toEqual([])
    await h.rows("ANALYZE store.orders, store.order_line_items")
    const stats = await h.rows<{ table: string; column: string }>(
      `SELECT schemaname || '.' || tablename AS "table", attname AS "column" FROM pg_stats
       WHERE schemaname = 'store' AND tablename IN ('orders', 'order_line_items') AND attname IN ('doc', 'created_day', 'order_id')
       ORDER BY 1, 2`)
    expect(stats).toEqual([{ table: "store.order_line_items", column: "order_id" }, { table: "store.orders", column: "created_day" }])
  })

  it("ANALYZE builds no statistics of an address, and keeps the other columns'", async () => {
    const columns = await h.rows<{ table: string; column: string; statsTarget: number | null }>(ADDRESS_COLUMNS)
    expect(columns.map((c) => `${c.table}.${c.column}=${c.statsTarget}`)).toEqual([
      "store.customers.billing=0", "store.customers.shipping=0", "store.orders.billing=0", "store.orders.shipping=0"
    ])
    await h.rows("ANALYZE store.orders, store.customers")
    const stats = await h.rows<{ table: string; column: string }>(
      `SELECT schemaname || '.' || tablename AS "table", attname AS "column" FROM pg_stats
       WHERE schemaname = 'store' AND tablename IN ('orders', 'customers') AND attname IN ('billing', 'shipping', 'billing_email', 'email')
       ORDER BY 1, 2`)
    expect(stats).toEqual([{ table: "store.customers", column: "email" }, { table: "store.orders", column: "billing_email" }])
  })

  it("orders big enough for pglz are written without it", async () => {
    const [stored] = await h.rows<{ big: number; pglz: number }>(
      `SELECT count(*) FILTER (WHERE pg_column_size(doc) > 2100)::int AS big,
              count(*) FILTER (WHERE pg_column_compression(doc) = 'pglz')::int AS pglz
       FROM store.orders WHERE store_id = $1`, [STORE_ID])
    expect(stored!.big).toBeGreaterThan(50)
    expect(stored!.pglz).toBe(0)
  })
})
