// The refunds an order lists are kept as ids beside its document (migration 025), which the refunds stream's checks
// read instead of every document. An order's `refunds` is the shop's to fill: whatever shape it comes in, loading the
// order and both checks must go on, keeping exactly the ids that are positive integers.
import { Effect } from "effect"
import fc from "fast-check"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LiveRows } from "../../src/warehouse/live-rows.js"
import { Loader } from "../../src/warehouse/loader.js"
import { sqlFile } from "../../src/warehouse/sql-files.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { planOf, storeScans } from "../support/plans.js"
import { copyStoreRows, UNSEEN_STORE } from "../support/unseen-store.js"

type Doc = Record<string, unknown> & { id: number }

/** The ids a `refunds` value lists, as the warehouse must keep them: integers written with at most 18 digits. */
const expectedIds = (refunds: unknown): Array<string> =>
  Array.isArray(refunds)
    ? refunds.flatMap((e) => {
      const id = e !== null && typeof e === "object" && !Array.isArray(e) ? (e as Record<string, unknown>)["id"] : undefined
      const text = typeof id === "number" ? String(id) : typeof id === "string" ? id : ""
      return /^[0-9]{1,18}$/.test(text) ? [String(BigInt(text))] : []
    })
    : []

describe("the refunds an order lists", () => {
  let h: Harness
  let orders: Array<Doc>
  let runId: number
  beforeAll(async () => {
    h = await makeHarness({ data: { seed: 53, orders: 40, start: "2026-03-01", days: 10 } })
    await h.sync()
    orders = (await h.rows<{ doc: Doc }>("SELECT doc FROM store.orders WHERE store_id = $1 ORDER BY id LIMIT 30", [STORE_ID])).map((r) => r.doc)
    runId = (await h.rows<{ id: number }>("SELECT max(id)::int AS id FROM sync.runs WHERE store_id = $1", [STORE_ID]))[0]!.id
  })
  afterAll(() => h.close())

  const load = (docs: ReadonlyArray<Doc>) => h.run(Effect.flatMap(Loader, (loader) => loader.load({ kind: "orders", docs })))
  const kept = async (ids: ReadonlyArray<number>) =>
    new Map((await h.rows<{ id: number; refund_ids: Array<string> }>(
      "SELECT id::int, refund_ids::text[] FROM store.orders WHERE store_id = $1 AND id = ANY($2::bigint[])", [STORE_ID, ids])).map((r) => [r.id, r.refund_ids]))
  const checks = () =>
    h.run(Effect.flatMap(LiveRows, (live) => Effect.all([live.ordersListingUnheldRefunds(runId), live.ordersWithRefundsToRead(false)])))

  it("keeps the ids that are positive integers, and both checks find the order listing one the warehouse lacks", async () => {
    const [scalar, junk, object, unheld] = orders
    await load([
      { ...scalar!, refunds: "none" },
      { ...junk!, refunds: [{ id: "abc" }, 5, null, { id: 1.5 }, { id: -3 }, { nope: 1 }, [{ id: 4 }], { id: "12345678901234567890" }] },
      { ...object!, refunds: { id: 7 } },
      { ...unheld!, refunds: [{ id: 987_654_321, reason: "", total: "-1.00" }, { id: "x" }] }
    ])
    const ids = await kept([scalar!.id, junk!.id, object!.id, unheld!.id])
    expect([scalar, junk, object, unheld].map((o) => ids.get(o!.id))).toEqual([[], [], [], ["987654321"]])
    const [listing, toRead] = await checks()
    expect(listing).toEqual([unheld!.id])
    expect(toRead).toContain(unheld!.id)
  })

  it("for any JSON a shop puts in `refunds`, the order loads with exactly those ids and the checks do not fail", async () => {
    const element = fc.oneof(
      fc.record({ id: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null), fc.bigInt({ min: 0n, max: 10n ** 20n }).map(String)) }, { requiredKeys: [] }),
      fc.jsonValue({ maxDepth: 2 }))
    const refunds = fc.oneof(fc.array(element, { maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }))
    const targets = orders.slice(4)
    await fc.assert(fc.asyncProperty(fc.array(refunds, { minLength: targets.length, maxLength: targets.length }), async (lists) => {
      const docs = targets.map((o, i) => ({ ...o, refunds: lists[i] }))
      expect(await load(docs)).toEqual([])
      const ids = await kept(targets.map((o) => o.id))
      // PostgreSQL keeps what JSON says: a JSON round trip of the value, as the page's text carries it.
      expect(targets.map((o) => ids.get(o.id))).toEqual(docs.map((d) => expectedIds(JSON.parse(JSON.stringify(d.refunds ?? null)))))
      await checks()
    }), { numRuns: 40 })
  })
})

// A store the statistics do not know (added to a warehouse of others, loaded since the last ANALYZE; UNSEEN_STORE)
// looks empty to the planner: with the refunds looked up by the store's id as a value, it read every refund of the store for each one
// an order lists (1.0 s after a 10,000-order store's first load into a warehouse of another).
describe("the refunds check of a store the statistics lack", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ data: { seed: 23, orders: 300, start: "2026-02-01", days: 30 } })
    await h.sync()
    await h.rows("ANALYZE store.orders, store.refunds")
  })
  afterAll(() => h.close())

  it("looks each listed refund up by its key, and finds the order whose refund the warehouse lost", async () => {
    const unseen = UNSEEN_STORE
    const runId = (await h.rows<{ id: number }>("SELECT max(id)::int AS id FROM sync.runs WHERE store_id = $1", [STORE_ID]))[0]!.id
    const client = new pg.Client({ connectionString: h.dbUrl })
    await client.connect()
    try {
      await client.query("BEGIN")
      for (const table of ["orders", "refunds"]) await copyStoreRows(client, table, STORE_ID)
      const lost = (await client.query<{ order_id: string }>(
        "UPDATE store.refunds SET deleted_at = now() WHERE store_id = $1 AND id = (SELECT min(id) FROM store.refunds WHERE store_id = $1) RETURNING order_id::text",
        [unseen])).rows.map((r) => Number(r.order_id))
      expect(lost).toHaveLength(1)
      const script = sqlFile("live-rows/orders_listing_unheld_refunds")
      const lookups = storeScans(await planOf(client, "ANALYZE, VERBOSE", script, [unseen, runId]), "refunds")
      expect(lookups.map((scan) => Number(scan["Actual Loops"]))[0]).toBeGreaterThan(10)
      expect(lookups.map((scan) => Number(scan["Rows Removed by Filter"] ?? 0))).toEqual(lookups.map(() => 0))
      const found = (await client.query<{ id: string }>(script, [unseen, runId])).rows.map((r) => Number(r.id))
      expect(found).toEqual(lost)
    } finally {
      await client.query("ROLLBACK")
      await client.end()
    }
  })
})
