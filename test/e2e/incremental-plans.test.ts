// What an incremental sync reads of a big store must grow with what changed, not with the store: a worker runs one
// every few minutes for each store. The deletion check counts the live rows from an index alone (migration 026), and
// the customers to read downloads for come from the rows written since the mark, by index, not from every customer.
// Each statement is run as the code sends it (text and values, caught on the client) and its plan read with EXPLAIN.
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LiveRows } from "../../src/warehouse/live-rows.js"
import { CurrentStore } from "../../src/warehouse/current-store.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { migrate } from "../../src/warehouse/migrate.js"
import { PreparedClient } from "../../src/warehouse/prepared-client.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const STORE = "plans-t"

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Heap Fetches"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}
const nodes = (node: PlanNode): Array<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodes)]

describe("an incremental sync's reads of a big store", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let runtime: ManagedRuntime.ManagedRuntime<LiveRows, unknown>
  beforeAll(async () => {
    db = await freshDatabase()
    const base = pgLayer(Redacted.make(db.url), 1)
    await Effect.runPromise(migrate.pipe(Effect.provide(base)))
    runtime = ManagedRuntime.make(LiveRows.Default.pipe(Layer.provide(CurrentStore.layer(STORE)), Layer.provide(base)))
    // 20,000 orders over a year, a few deleted, written a day ago; 4,000 customers likewise; then the autovacuum's work.
    await sqlRows(db.url, `INSERT INTO store.orders (store_id, id, status, currency, date_created, date_created_local, date_modified, total, doc, customer_id, synced_at, deleted_at)
      SELECT $1, i, 'completed', 'EUR', t, t, t, 10, '{}', 1 + i % 4000, now() - interval '1 day', CASE WHEN i % 97 = 0 THEN now() - interval '1 day' END
      FROM generate_series(1, 20000) AS i, LATERAL (SELECT timestamptz '2025-01-01' + i * interval '26 minutes' AS t) d`, [STORE])
    await sqlRows(db.url, `INSERT INTO store.customers (store_id, id, doc, doc_hash, synced_at) SELECT $1, i, '{}', 'h', now() - interval '1 day' FROM generate_series(1, 4000) AS i`, [STORE])
    await sqlRows(db.url, "VACUUM ANALYZE store.orders")
    await sqlRows(db.url, "VACUUM ANALYZE store.customers")
  }, 120_000)
  afterAll(async () => {
    await runtime?.dispose()
    await db?.drop()
  })

  /** The plan of every statement with values `run` sends, as sent. */
  const plansOf = async (run: Effect.Effect<unknown, unknown, LiveRows>): Promise<Array<PlanNode>> => {
    const sent: Array<[string, ReadonlyArray<unknown>]> = []
    const query = PreparedClient.prototype.query
    PreparedClient.prototype.query = function(this: PreparedClient, config: any, values?: any, callback?: any) {
      if (typeof config === "string" && Array.isArray(values)) sent.push([config, values])
      return query.call(this, config, values, callback)
    }
    try {
      await runtime.runPromise(run)
    } finally {
      PreparedClient.prototype.query = query
    }
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      const plans = []
      for (const [text, values] of sent) {
        const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${text}`, [...values])
        plans.push((rows[0]["QUERY PLAN"] as Array<{ Plan: PlanNode }>)[0]!.Plan)
      }
      return plans
    } finally {
      await client.end()
    }
  }

  it("counts the live orders of a deletion check from their index alone", async () => {
    const upper = Math.floor(Date.parse("2026-01-01") / 1000)
    const [plan] = await plansOf(Effect.flatMap(LiveRows, (live) => live.liveRange("orders", upper)))
    const scans = nodes(plan!).filter((n) => n["Relation Name"] === "orders")
    expect(scans.map((n) => [n["Node Type"], n["Index Name"]])).toEqual([["Index Only Scan", "orders_modified_idx"]])
    const [counted] = await runtime.runPromise(Effect.map(Effect.flatMap(LiveRows, (live) => live.liveRange("orders", upper)), (r) => [r]))
    expect(counted).toEqual({ start: Math.floor(Date.parse("2025-01-01") / 1000) + 26 * 60, count: 20_000 - Math.floor(20_000 / 97) })
  })

  it("takes the customers written since the mark, or whose orders were, from the rows written alone", async () => {
    await sqlRows(db.url, "UPDATE store.customers SET synced_at = now() WHERE store_id = $1 AND id IN (5, 6)", [STORE])
    await sqlRows(db.url, "UPDATE store.orders SET synced_at = now() WHERE store_id = $1 AND id = 7", [STORE])
    const [mark] = await sqlRows<{ at: string }>(db.url, "SELECT (now() - interval '1 hour')::text AS at")
    const changed = Effect.flatMap(LiveRows, (live) => live.changedParents("customers", mark!.at, null, null, 500))
    const [plan] = await plansOf(changed)
    const customerScans = nodes(plan!).filter((n) => n["Relation Name"] === "customers" && n["Node Type"] !== "Index Scan")
    expect(customerScans.map((n) => n["Node Type"])).toEqual([])
    const byIndex = nodes(plan!).flatMap((n) => (n["Index Name"] === undefined ? [] : [n["Index Name"]]))
    expect(byIndex).toEqual(expect.arrayContaining(["customers_synced_idx", "orders_synced_idx"]))
    // Order 7's customer (1 + 7 % 4,000) and the two written.
    expect(await runtime.runPromise(changed)).toEqual(["5", "6", "8"])
  })
})
