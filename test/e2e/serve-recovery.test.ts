// `shopsync serve` losing things: killed with SIGKILL while it applies a delivery (the restart replays the inbox,
// nothing lost, nothing twice), stopped with SIGTERM while the store keeps sending (the store disables the
// webhook; the background sync catches up and the disabled subscription is reported), and its warehouse gone.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { dailyNetSales, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { eventually, type Serve, startServe } from "../support/serve.js"

const STORE = "serve-r"

describe("shopsync serve recovers what it missed", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>
  let serve: Serve
  let port: number
  const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => sqlRows<T>(db.url, text, params)
  const netSales = () =>
    q(`SELECT day::text AS day, currency, orders_count, to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
              to_char(refunds, 'FM999999999990.00') AS refunds, to_char(net_sales, 'FM999999999990.00') AS net_sales
       FROM analytics.daily_net_sales WHERE store_id = $1 ORDER BY day, currency`, [STORE])
  const matchesStore = (timeoutMs: number) =>
    eventually(async () => JSON.stringify(await netSales()) === JSON.stringify(dailyNetSales(sim.state)), timeoutMs, "daily_net_sales equal to the store's")
  const states = async () => q<{ state: string; n: number }>("SELECT state, count(*)::int AS n FROM sync.webhook_inbox GROUP BY state ORDER BY state")
  const line = () => [{ product_id: sim.state.products.find((p) => p.type === "simple")!.id, quantity: 1 }]

  beforeAll(async () => {
    sim = await startStoreSimulator({ data: { seed: 21, orders: 120, customers: 30, products: 10, start: "2026-06-01", days: 15 } })
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: STORE, STORE_WEBHOOK_SECRET: "whsec_recovery", SHOPSYNC_SYNC_EVERY: "1h" }
    serve = await startServe(env)
    port = serve.port
    await serve.ready
    expect((await runCli(["store-hooks", "ensure", "--url", serve.hookUrl], env)).code).toBe(0)
  })
  afterAll(async () => {
    serve?.child.kill("SIGKILL")
    await sim?.close()
    await db?.drop().catch(() => undefined)
  })

  it("killed with SIGKILL while applying, then restarted: the inbox is replayed, nothing lost, nothing twice", async () => {
    const order = sim.state.createOrder({ status: "completed", currency: "USD", line_items: line() })
    await sim.webhooksIdle()
    await matchesStore(5_000)
    // The refund's order.updated makes the worker read the order's refunds: the store answers slowly.
    sim.setFaults([{ kind: "latency", latencyMs: 4_000, pathPrefix: `/orders/${order.id}/refunds` }])
    sim.state.createRefund(order.id, { amount: "3.00" })
    await sim.webhooksIdle()
    const more = Array.from({ length: 5 }, () => sim.state.createOrder({ status: "processing", currency: "USD", line_items: line() }).id)
    await sim.webhooksIdle()
    expect((await states()).find((s) => s.state === "pending")?.n).toBeGreaterThanOrEqual(6)
    serve.child.kill("SIGKILL")
    expect((await serve.done).signal).toBe("SIGKILL")
    sim.setFaults([])

    const pending = (await q<{ seq: string }>("SELECT seq FROM sync.webhook_inbox WHERE state = 'pending'")).map((r) => r.seq)
    serve = await startServe(env, port)
    await eventually(async () => (await q("SELECT 1 FROM sync.webhook_inbox WHERE state = 'pending'")).length === 0, 20_000, "inbox replayed")
    const unapplied = await q("SELECT seq, state, reason FROM sync.webhook_inbox WHERE seq = ANY($1::bigint[]) AND state NOT IN ('applied', 'skipped')", [pending])
    // What the warehouse refused, if it refused anything: PostgreSQL's reason is in the quarantine, not the inbox.
    const refused = unapplied.length === 0 ? [] : await q("SELECT stream, id, reason FROM store.quarantine WHERE store_id = $1", [STORE])
    expect({ unapplied, refused }).toEqual({ unapplied: [], refused: [] })
    await serve.ready
    await matchesStore(5_000)
    expect(await q("SELECT id FROM store.refunds WHERE store_id = $1 AND order_id = $2", [STORE, order.id])).toHaveLength(1)
    expect(await q("SELECT id FROM store.orders WHERE store_id = $1 AND id = ANY($2::bigint[])", [STORE, more])).toHaveLength(5)
  })

  it("SIGTERM exits 143; what the store sent meanwhile (the webhook disabled) is caught by the background sync", async () => {
    serve.child.kill("SIGTERM")
    expect((await serve.done).code).toBe(143)
    const live = sim.state.orders.filter((o) => o.status === "completed").slice(0, 6)
    for (const o of live) sim.state.updateOrder(o.id, { status: "on-hold" })
    await sim.webhooksIdle()
    const disabled = [...sim.state.webhooks.byId.values()].filter((w) => w.status === "disabled")
    expect(disabled.map((w) => w.topic)).toContain("order.updated")

    serve = await startServe({ ...env, SHOPSYNC_SYNC_EVERY: "2s", SHOPSYNC_DELETIONS_HOURS: "0" }, port)
    await serve.ready
    await matchesStore(5_000)
    await eventually(async () => /order\.updated \(webhook \d+\) disabled/.test(serve.stderr()), 10_000, "the disabled subscription reported")

    // The simulator sends nothing for a forced deletion: only the scheduled sync can see it.
    const gone = sim.state.orders.find((o) => o.status === "processing")!
    sim.state.forceDeleteOrder(gone.id)
    await eventually(async () => (await q("SELECT 1 FROM store.orders WHERE store_id = $1 AND id = $2 AND deleted_at IS NOT NULL", [STORE, gone.id])).length === 1, 15_000, "forced deletion caught")
    await matchesStore(5_000)

    const ensured = await runCli(["store-hooks", "ensure", "--url", serve.hookUrl], env)
    expect(ensured.stdout).toMatch(/order\.updated: webhook \d+ reactivated/)
  })

  it("/healthz answers 503 with the reason when the warehouse is gone", async () => {
    expect((await fetch(`${serve.base}/healthz`)).status).toBe(200)
    await db.drop()
    const answer = await eventually(async () => {
      const r = await fetch(`${serve.admin}/healthz`)
      return r.status === 503 ? ((await r.json()) as { reason: string }) : undefined
    }, 10_000, "healthz 503")
    expect(answer.reason).toContain("warehouse")
    serve.child.kill("SIGTERM")
    expect((await serve.done).code).toBe(143)
  })
})
