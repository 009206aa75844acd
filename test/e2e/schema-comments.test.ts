// The warehouse explains itself to whoever reads it in psql or a BI tool: every table, view, column and function
// of the schemas consumers and operators read has a comment (a new column without one fails here), and the
// docs/analytics-columns.md says what those comments say.
import { Effect, Redacted } from "effect"
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgLayer } from "../../src/warehouse/database.js"
import { migrate } from "../../src/warehouse/migrate.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const SCHEMAS = ["store", "sync", "analytics", "marketing"]

/** Every object of those schemas without a comment, named as psql would, with what it is. */
const UNCOMMENTED = `
  SELECT format('%s %s', CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' ELSE 'table' END, c.oid::regclass) AS missing
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = ANY ($1) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND obj_description(c.oid, 'pg_class') IS NULL
  UNION ALL
  SELECT format('column %s.%I', c.oid::regclass, a.attname)
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = ANY ($1) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
    AND col_description(c.oid, a.attnum) IS NULL
  UNION ALL
  SELECT format('function %s', p.oid::regprocedure)
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = ANY ($1) AND obj_description(p.oid, 'pg_proc') IS NULL
  ORDER BY 1`

interface Documented {
  readonly view: string
  readonly comment: string
  readonly columns: Array<[string, string]>
}

/**
 * docs/analytics-columns.md, the analysts' column reference: each "`analytics.<view>`: <comment>" line and the table
 * under it, one `| \`column\` | comment |` row per column.
 */
const documentedViews = (): Documented[] => {
  const views: Documented[] = []
  for (const line of fs.readFileSync("docs/analytics-columns.md", "utf8").split("\n")) {
    const view = /^`(analytics\.\w+)`: (.*)$/.exec(line)
    if (view) views.push({ view: view[1]!, comment: view[2]!, columns: [] })
    const column = /^\| `(\w+)` \| (.*) \|$/.exec(line)
    if (column) views[views.length - 1]!.columns.push([column[1]!, column[2]!])
  }
  return views
}

/** The same, as the warehouse's comments say it: every column of the view, in order. */
const warehouseView = async (url: string, view: string): Promise<Documented> => {
  const [described] = await sqlRows<{ comment: string }>(url, "SELECT obj_description($1::regclass, 'pg_class') AS comment", [view])
  const columns = await sqlRows<{ name: string; comment: string }>(url,
    `SELECT attname AS name, col_description(attrelid, attnum) AS comment FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, [view])
  return { view, comment: described!.comment, columns: columns.map((c) => [c.name, c.comment]) }
}

describe("a schema that explains itself", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    db = await freshDatabase()
    await Effect.runPromise(migrate.pipe(Effect.provide(pgLayer(Redacted.make(db.url)))))
  })
  afterAll(() => db.drop())

  it("comments every table, view, column and function of store, sync, analytics and marketing", async () => {
    const missing = (await sqlRows<{ missing: string }>(db.url, UNCOMMENTED, [SCHEMAS])).map((r) => r.missing)
    expect(missing, `without a comment (add COMMENT ON in the migration or model that creates them):\n${missing.join("\n")}`).toEqual([])
  })

  it("looks at what the warehouse holds: it finds a column added without a comment", async () => {
    const missing = async () => (await sqlRows<{ missing: string }>(db.url, UNCOMMENTED, [SCHEMAS])).map((r) => r.missing)
    const before = await missing()
    await sqlRows(db.url, "ALTER TABLE store.orders ADD COLUMN probe_without_comment text")
    try {
      expect((await missing()).filter((m) => !before.includes(m))).toEqual(["column store.orders.probe_without_comment"])
    } finally {
      await sqlRows(db.url, "ALTER TABLE store.orders DROP COLUMN probe_without_comment")
    }
  })

  it("docs/analytics-columns.md is the warehouse's comments, every column of each view it shows, in order", async () => {
    const documented = documentedViews()
    expect(documented.map((d) => d.view)).toEqual([
      "analytics.daily_net_sales", "analytics.daily_sales", "analytics.daily_totals_current", "analytics.stores",
      "analytics.daily_product_sales", "analytics.customers_ltv", "analytics.customer_cohorts", "analytics.order_status_history",
      "analytics.freshness"
    ])
    for (const d of documented) expect(d).toEqual(await warehouseView(db.url, d.view))
  })
})
