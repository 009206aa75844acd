// sync.retire_orphans_of marks the children (order notes, downloads) whose parent is not live. A store the statistics
// do not know (a first sync in a warehouse of other stores, before its ANALYZE) looks empty to the planner: with the
// parents looked up by the store's id as a value, it read every order of the store for each note (10,000 orders,
// 1,987 notes: 43.6 s). Counted here in the rows the transaction read from store.orders, not timed.
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { copyStoreRows, UNSEEN_STORE } from "../support/unseen-store.js"

describe("the orphans of a store the statistics lack", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ data: { seed: 29, orders: 300, start: "2026-02-01", days: 30 } })
    await h.sync()
    await h.rows("ANALYZE store.orders")
  })
  afterAll(() => h.close())

  it("are found with one parent lookup per child, and only they are marked", async () => {
    const unseen = UNSEEN_STORE
    const client = new pg.Client({ connectionString: h.dbUrl })
    await client.connect()
    try {
      await client.query("BEGIN")
      const copied = await copyStoreRows(client, "orders", STORE_ID)
      // A note for every third order, and one for an order the store does not have (an orphan) every tenth note.
      const notes = await client.query<{ orphan: boolean }>(
        `INSERT INTO store.order_notes (store_id, scope, key, doc, doc_hash, first_seen_at, changed_at)
         SELECT $1, CASE WHEN n % 10 = 0 THEN (o.id + 900000000)::text ELSE o.id::text END, n::text, '{}'::jsonb, '', now(), now()
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM store.orders WHERE store_id = $1) o WHERE n % 3 = 0
         RETURNING scope::bigint > 900000000 AS orphan`, [unseen])
      const orphans = notes.rows.filter((r) => r.orphan).length
      expect(orphans).toBeGreaterThan(2)
      const read = async () => Number((await client.query<{ n: string }>(
        "SELECT (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text AS n FROM pg_stat_xact_user_tables WHERE relid = 'store.orders'::regclass")).rows[0]!.n)
      const before = await read()
      const marked = (await client.query<{ n: number }>("SELECT sync.retire_orphans_of('store.order_notes'::regclass, $1, 'store.orders'::regclass) AS n", [unseen])).rows[0]!.n
      const orderRowsRead = (await read()) - before
      expect(marked).toBe(orphans)
      expect(orderRowsRead, `${notes.rowCount} notes of a store of ${copied} orders`).toBeLessThanOrEqual(notes.rowCount!)
      const live = await client.query("SELECT 1 FROM store.order_notes WHERE store_id = $1 AND deleted_at IS NULL AND scope::bigint > 900000000", [unseen])
      expect(live.rowCount).toBe(0)
    } finally {
      await client.query("ROLLBACK")
      await client.end()
    }
  })
})
