// `sync --dry-run` and `sync --full-refresh`, through the real CLI, against the store simulator's own figures.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { dailyNetSales, manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const STORE = "sopt"

describe("sync --dry-run and --full-refresh", () => {
  const clock = manualClock(Date.parse("2026-09-01T00:00:00Z"))
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>
  const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => sqlRows<T>(db.url, text, params)
  const count = async (text: string) => (await q<{ n: number }>(text, [STORE]))[0]!.n
  const ordersRow = (stdout: string) => stdout.split("\n").find((l) => /^\s*orders\s/.test(l)) ?? ""
  const netSales = () =>
    q(`SELECT day::text AS day, currency, orders_count, to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
              to_char(refunds, 'FM999999999990.00') AS refunds, to_char(net_sales, 'FM999999999990.00') AS net_sales
       FROM analytics.daily_net_sales WHERE store_id = $1 ORDER BY day, currency`, [STORE])
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock, data: { seed: 12, orders: 150, start: "2026-07-01", days: 20 } })
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: STORE, STORE_SETTLE_SECONDS: "0" }
  })
  afterAll(async () => {
    await sim.close()
    await db.drop()
  })

  it("a dry run says what would be read and writes nothing; after a sync, only what changed", async () => {
    const first = await runCli(["sync", "--dry-run", "--streams", "orders,refunds,products"], env)
    expect([first.code, first.stderr]).toEqual([0, expect.any(String)])
    expect(ordersRow(first.stdout)).toMatch(new RegExp(`orders\\s+${sim.state.orders.length}\\s+\\d+\\s+none`))
    expect(first.stdout).toContain("nothing was written")
    expect(await count("SELECT count(*)::int AS n FROM store.orders WHERE store_id = $1")).toBe(0)
    expect(await count("SELECT count(*)::int AS n FROM sync.runs WHERE store_id = $1")).toBe(0)

    expect((await runCli(["sync", "--no-push", "--streams", "orders,refunds,products"], env)).code).toBe(0)
    const atCursor = await count(`SELECT count(*)::int AS n FROM store.orders WHERE store_id = $1
                                  AND date_trunc('second', date_modified) = (SELECT date_trunc('second', max(date_modified)) FROM store.orders WHERE store_id = $1)`)
    clock.advance(60_000)
    for (const o of sim.state.orders.filter((o) => o.status === "processing").slice(0, 3)) sim.state.updateOrder(o.id, { status: "completed" })
    clock.advance(60_000)
    const later = await runCli(["sync", "--dry-run", "--streams", "orders"], env)
    expect(later.code).toBe(0)
    const documents = Number(ordersRow(later.stdout).trim().split(/\s+/)[1])
    // The three changed, and the rows of the cursor's own second, which a walk reads again.
    expect(documents).toBeGreaterThanOrEqual(3)
    expect(documents).toBeLessThanOrEqual(3 + atCursor)
  })

  it("a full refresh reads a stream from the start, repairs what differs, and counts nothing twice", async () => {
    expect((await runCli(["sync", "--no-push", "--streams", "orders,refunds,products"], env)).code).toBe(0)
    const [damaged] = await q<{ id: string }>(`SELECT id::text FROM store.orders WHERE store_id = $1 AND status = 'completed' ORDER BY id LIMIT 1`, [STORE])
    await q(`UPDATE store.orders SET total = total + 1000, doc = jsonb_set(doc, '{total}', '"123456.00"') WHERE store_id = $1 AND id = $2`, [STORE, damaged!.id])
    expect(await netSales()).not.toEqual(dailyNetSales(sim.state))

    const twice = await runCli(["sync", "--streams", "orders", "--full-refresh", "orders"], env)
    expect(twice.code).toBe(64)
    const run = await runCli(["sync", "--no-push", "--full-refresh", "orders"], env)
    expect([run.code, run.stderr]).toEqual([0, expect.any(String)])
    // Every order read again (the first sync's walk), not only those past the cursor.
    expect(run.stdout).toMatch(new RegExp(`orders\\s+${sim.state.orders.length}\\s`))
    expect(await netSales()).toEqual(dailyNetSales(sim.state))
    expect(await count("SELECT count(*)::int AS n FROM store.orders WHERE store_id = $1")).toBe(sim.state.orders.length)
  })
})
