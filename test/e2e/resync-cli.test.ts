// `shopsync resync`: documents read again by id, through the real CLI, against the store simulator's own documents.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const STORE = "rcli"

describe("shopsync resync on the command line", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>
  /** A document as the store serves it. */
  const served = async (path: string) =>
    (await (await fetch(`${sim.url}${path}`, { headers: { authorization: `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}` } })).json()) as Record<string, unknown>
  const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => sqlRows<T>(db.url, text, params)
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock: manualClock(Date.parse("2026-09-01T00:00:00Z")), data: { seed: 8, orders: 80, start: "2026-07-01", days: 20 } })
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: STORE, STORE_SETTLE_SECONDS: "0" }
    expect((await runCli(["sync", "--no-push", "--streams", "orders,refunds,products,customers"], env)).code).toBe(0)
  })
  afterAll(async () => {
    await sim.close()
    await db.drop()
  })

  it("repairs a damaged order and refund, marks a deleted order gone, and names the fix for a refund it cannot place", async () => {
    const refund = sim.state.refunds[0]!
    const damaged = sim.state.orders.find((o) => o.id !== refund.orderId && o.status === "completed")!
    const removed = sim.state.orders.find((o) => o.id !== refund.orderId && o.id !== damaged.id)!
    // Rows that differ from the store's documents, as a bug or a hand edit would leave them.
    await q(`UPDATE store.orders SET total = total + 100, doc = jsonb_set(doc, '{total}', '"999999.00"') WHERE store_id = $1 AND id = $2`, [STORE, damaged.id])
    await q(`UPDATE store.refunds SET amount = amount + 50, doc = jsonb_set(doc, '{amount}', '"777.00"') WHERE store_id = $1 AND id = $2`, [STORE, refund.id])
    sim.state.forceDeleteOrder(removed.id)

    const run = await runCli(["resync", "order", String(damaged.id), String(removed.id)], env)
    expect([run.code, run.stderr]).toEqual([0, expect.any(String)])
    expect(run.stdout).toMatch(new RegExp(`order\\s+${damaged.id}\\s+applied`))
    expect(run.stdout).toMatch(new RegExp(`order\\s+${removed.id}\\s+gone: marked deleted`))
    const orders = await q<{ id: string; total: string; deleted: boolean }>(
      "SELECT id::text, total::text, deleted_at IS NOT NULL AS deleted FROM store.orders WHERE store_id = $1 AND id = ANY($2::bigint[])",
      [STORE, [damaged.id, removed.id]])
    const byId = new Map(orders.map((o) => [Number(o.id), o]))
    expect(Number(byId.get(damaged.id)?.total)).toBe(Number((await served(`/orders/${damaged.id}`)).total))
    expect([byId.get(damaged.id)?.deleted, byId.get(removed.id)?.deleted]).toEqual([false, true])

    const refundRun = await runCli(["resync", "refund", String(refund.id)], env)
    expect(refundRun.code).toBe(0)
    const [amount] = await q<{ amount: string }>("SELECT amount::text FROM store.refunds WHERE store_id = $1 AND id = $2", [STORE, refund.id])
    expect(Number(amount!.amount)).toBe(Number((await served(`/orders/${refund.orderId}/refunds/${refund.id}`)).amount))

    const unknown = await runCli(["resync", "refund", "987654"], env)
    expect(unknown.code).toBe(2)
    expect(unknown.stdout + unknown.stderr).toContain("shopsync resync order ORDER_ID")
  })

  it("takes only the resources it knows, and at least one id (64)", async () => {
    expect((await runCli(["resync", "coupon", "1"], env)).code).toBe(64)
    expect((await runCli(["resync", "order"], env)).code).toBe(64)
    const help = await runCli(["resync", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("marked deleted")
  })
})
