// A page's merge drops the staged documents the warehouse holds as they are. That comparison of documents must be
// the output of a lookup by id, never a filter of a scan: the planner orders and places filters by its statistics,
// and on statistics taken while a table was small (an autovacuum's early in a backfill) it scanned all the store's
// refunds by another index for each staged one, comparing documents before ids (0.4 s a page at 3,000 refunds).
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sqlFile } from "../../src/warehouse/sql-files.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { type PlanNode, planOf, storeScans } from "../support/plans.js"
import { copyStoreRows, UNSEEN_STORE } from "../support/unseen-store.js"

/** Every condition a plan tests row by row (filters, join keys), as PostgreSQL prints them. */
const conditions = (node: PlanNode): Array<string> => [
  ...["Filter", "Join Filter", "Hash Cond", "Merge Cond", "Recheck Cond"].flatMap((k) => (typeof node[k] === "string" ? [node[k] as string] : [])),
  ...(node.Plans ?? []).flatMap(conditions)
]

/** The statements of a kind's merge script. */
const statementsOf = (kind: "orders" | "refunds") =>
  sqlFile(`load/${kind}`).split(/;\s*\n/).map((s) => s.replace(/^(\s*--.*\n)+/g, "").trim()).filter((s) => s !== "")

/** The script's statement that drops the staged documents the warehouse holds. */
const dropStatement = (kind: "orders" | "refunds") => {
  const statement = statementsOf(kind).find((s) => s.startsWith("DELETE FROM sync_batch b"))
  if (statement === undefined) throw new Error(`load/${kind}.sql has no DELETE FROM sync_batch`)
  return statement
}

/** The relations a plan node and those under it scan, as `schema.table` (a temp table's schema is pg_temp_N). */
const scanned = (node: PlanNode): Array<string> => [
  ...(typeof node["Relation Name"] === "string" ? [`${String(node["Schema"]).replace(/^pg_temp_\d+$/, "pg_temp")}.${node["Relation Name"]}`] : []),
  ...(node.Plans ?? []).flatMap(scanned)
]
/** The joins of a plan, each as the relations under it, and whether it looks the warehouse's rows up by a staged row's key. */
const joins = (node: PlanNode): Array<{ readonly relations: Array<string>; readonly keyed: boolean }> => [
  ...(["Nested Loop", "Hash Join", "Merge Join"].includes(node["Node Type"]) ? [{ relations: scanned(node), keyed: keyedLookup(node) }] : []),
  ...(node.Plans ?? []).flatMap(joins)
]

/** A nested loop whose every warehouse scan is an index lookup by the staged row's id (`b.id`): one lookup per staged row. */
const keyedLookup = (join: PlanNode) =>
  join["Node Type"] === "Nested Loop" &&
  storeScans(join).every((scan) => ["Index Scan", "Index Only Scan"].includes(scan["Node Type"]) && /\bb\.id\b/.test(String(scan["Index Cond"])))

describe("a page's merge reaches the warehouse by key", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ data: { seed: 23, orders: 300, start: "2026-02-01", days: 30 } })
    await h.sync()
  })
  afterAll(() => h.close())

  /**
   * Runs `use` in a transaction rolled back after it, with the page's staging table as the loader makes it (loader.ts)
   * and the settings the merge reads.
   */
  const staging = async (use: (client: pg.Client) => Promise<void>) => {
    const client = new pg.Client({ connectionString: h.dbUrl })
    await client.connect()
    try {
      await client.query("BEGIN")
      await client.query("CREATE TEMP TABLE sync_batch (store_id text NOT NULL, id bigint NOT NULL, doc jsonb NOT NULL, known boolean NOT NULL DEFAULT false) ON COMMIT DROP")
      await client.query("SELECT set_config('shopsync.store', $1, true), set_config('shopsync.replace', 'off', true)", [STORE_ID])
      await use(client)
    } finally {
      await client.query("ROLLBACK")
      await client.end()
    }
  }

  it.each(["orders", "refunds"] as const)("%s: drops the unchanged copies, keeps the changed and the new, and filters no scan by document", async (kind) => {
    const held = await h.rows<{ doc: { id: number } }>(`SELECT doc FROM store.${kind} WHERE store_id = $1 ORDER BY id LIMIT 40`, [STORE_ID])
    expect(held.length).toBeGreaterThan(10)
    const unchanged = held.slice(0, 20).map((r) => r.doc)
    const changed = held.slice(20).map((r) => ({ ...r.doc, reason: "edited", status: "completed", customer_note: "edited" }))
    const fresh = unchanged.slice(0, 5).map((d, i) => ({ ...d, id: 900_000_000 + i }))
    await staging(async (client) => {
      await client.query("INSERT INTO sync_batch (store_id, id, doc) SELECT $1, (d->>'id')::bigint, d FROM jsonb_array_elements($2::jsonb) d",
        [STORE_ID, JSON.stringify([...unchanged, ...changed, ...fresh])])
      const plan = await planOf(client, "ANALYZE", dropStatement(kind))
      const left = (await client.query<{ id: string }>("SELECT id::text FROM sync_batch ORDER BY id")).rows.map((r) => Number(r.id))
      expect(left).toEqual([...changed, ...fresh].map((d) => d.id).sort((a, b) => a - b))
      expect(conditions(plan).filter((c) => /\bdoc\b/.test(c))).toEqual([])
    })
  })

  // The staged page has no statistics: a join of it to a warehouse table is the planner's to make a hash of the whole
  // table, a cost that grows with the store. Every statement looks the page's ids up by key instead: an index scan
  // per staged row at most.
  it.each(["orders", "refunds"] as const)("%s: no statement joins the staged page to a warehouse table but by key", async (kind) => {
    await staging(async (client) => {
      const found: Array<string> = []
      for (const statement of statementsOf(kind)) {
        for (const join of joins(await planOf(client, "VERBOSE", statement))) {
          const { relations, keyed } = join
          if (!keyed && relations.includes("pg_temp.sync_batch") && relations.some((r) => r.startsWith("store."))) found.push(`${statement.slice(0, 60)}: ${relations.join(", ")}`)
        }
      }
      expect(found).toEqual([])
    })
  })

  // A store the statistics do not know (added to a warehouse of others, or grown since the last ANALYZE) looks empty
  // to the planner: with the store's id compared to a setting beside an array of order ids, it scanned all the
  // store's lines by the primary key for each page, filtering them by order.
  it.each([
    { kind: "orders", lines: ["order_line_items", "order_tax_lines", "order_shipping_lines", "order_fee_lines", "order_coupon_lines"], key: "order_id" },
    { kind: "refunds", lines: ["refund_line_items"], key: "refund_id" }
  ] as const)("$kind: a known document's lines are read by its key, whatever the statistics say about the store", async ({ kind, lines, key }) => {
    const unseen = UNSEEN_STORE
    await h.rows(`ANALYZE ${lines.map((t) => `store.${t}`).join(", ")}`)
    await staging(async (client) => {
      for (const table of lines) await copyStoreRows(client, table, STORE_ID)
      await client.query("SELECT set_config('shopsync.store', $1, true)", [unseen])
      const staged = (await client.query<{ id: string }>(
        `INSERT INTO sync_batch (store_id, id, doc, known) SELECT $2, id, doc, true FROM store.${kind} WHERE store_id = $1 ORDER BY id LIMIT 10 RETURNING id::text`,
        [STORE_ID, unseen])).rows.map((r) => r.id)
      expect(staged).toHaveLength(10)
      const linesOfStaged = async (table: string) =>
        Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM store.${table} WHERE store_id = $1 AND ${key} = ANY ($2::bigint[])`, [unseen, staged])).rows[0]!.n)
      const misread: Array<string> = []
      for (const table of lines) {
        const statement = statementsOf(kind).find((s) => s.startsWith(`DELETE FROM store.${table} `))
        expect(statement, `load/${kind}.sql deletes from store.${table}`).toBeDefined()
        const held = await linesOfStaged(table)
        // An index scan reads the rows its keys find; a whole scan of a table this small is the planner's cheapest way.
        const scans = storeScans(await planOf(client, "ANALYZE, VERBOSE", statement!))
        expect(scans.length, `the plan of ${table}'s delete reads it`).toBeGreaterThan(0)
        const read = scans.filter((scan) => scan["Node Type"] !== "Seq Scan").map((scan) => Number(scan["Rows Removed by Filter"] ?? 0))
        const left = await linesOfStaged(table)
        if (read.some((n) => n > 0) || left !== 0) misread.push(`${table}: ${held} lines held, ${left} left, rows filtered out per index scan ${read.join(", ")}`)
      }
      expect(misread).toEqual([])
    })
  })
})
