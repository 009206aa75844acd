// Two writers merging the same new order at once, as serve's inbox worker and its background sync can: a delivery's
// copy and a sync page's. Each used to find the order absent, so the second inserted the order's lines again (23505
// on their key, which set a good document aside in store.quarantine) after overwriting the first's newer copy.
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Loader } from "../../src/warehouse/loader.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"

describe("concurrent merges of one order", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ data: { seed: 31, orders: 20, start: "2026-05-01", days: 5 } })
    await h.sync()
  })
  afterAll(() => h.close())

  it("serialize: the newer copy stays, with its lines once, and nothing is set aside", async () => {
    const line = [{ product_id: h.sim.state.products.find((p) => p.type === "simple")!.id, quantity: 2 }]
    const order = h.sim.state.createOrder({ status: "processing", currency: "USD", line_items: line })
    const auth = { authorization: `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}` }
    const older = (await (await fetch(`${h.sim.url}/orders/${order.id}`, { headers: auth })).json()) as Record<string, unknown>
    const modified = new Date(`${String(older.date_modified_gmt)}Z`).getTime() + 60_000
    const newer = { ...older, status: "completed", date_modified_gmt: new Date(modified).toISOString().slice(0, 19) }
    const merge = (doc: Record<string, unknown>, holdMs: number) =>
      Effect.flatMap(Effect.all([SqlClient.SqlClient, Loader]), ([sql, loader]) =>
        sql.withTransaction(Effect.zipLeft(loader.load({ kind: "orders", docs: [doc] }), Effect.sleep(holdMs))))
    // The newer copy's transaction stays open while the older one merges, then commits.
    const [first, second] = await h.run(Effect.all([merge(newer, 1_500), Effect.zipRight(Effect.sleep(300), merge(older, 0))], { concurrency: 2 }))
    expect({ first, second }).toEqual({ first: [], second: [] })
    expect(await h.rows("SELECT stream, id, reason FROM store.quarantine WHERE store_id = $1", [STORE_ID])).toEqual([])
    const held = await h.rows<{ status: string; lines: number }>(
      `SELECT o.status, (SELECT count(*)::int FROM store.order_line_items l WHERE l.store_id = o.store_id AND l.order_id = o.id) AS lines
       FROM store.orders o WHERE o.store_id = $1 AND o.id = $2`, [STORE_ID, order.id])
    expect(held).toEqual([{ status: "completed", lines: (older.line_items as unknown[]).length }])
  })
})
