// The Store entity's SyncNow running the real sync: two runner processes (test/support/cluster-sync-runner.ts) keep
// three simulated stores, each with its own data and timezone, in one warehouse; every store's daily_net_sales equals
// its simulator's own computation, before and after one runner is SIGKILLed, and no store's runs overlap in sync.runs.
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { dailyNetSales } from "../../src/simulator/store/reports/reference.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { migrate } from "../../src/warehouse/migrate.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { freePort } from "../support/ports.js"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const EVERY_MS = 6000
const STORES = [
  { storeId: "east", timezone: "America/New_York", seed: 31 },
  { storeId: "berlin", timezone: "Europe/Berlin", seed: 32 },
  { storeId: "tokyo", timezone: "Asia/Tokyo", seed: 33 }
]

const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 1000))
  }
}

describe("cluster runners running the real sync", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  const sims = new Map<string, StoreSimulator>()
  const runners: Array<{ child: ChildProcess; log: () => string }> = []
  let passed = false

  const startRunner = async () => {
    const stores = STORES.map(({ storeId }) => ({ storeId, apiUrl: sims.get(storeId)!.url }))
    const child = spawn(process.execPath, [
      "--import", "tsx", path.join(root, "test/support/cluster-sync-runner.ts"), db.url, JSON.stringify(stores), String(EVERY_MS)
    ], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SHOPSYNC_RUNNER_HOST: "127.0.0.1", SHOPSYNC_RUNNER_PORT: String(await freePort()) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let log = ""
    child.stdout!.on("data", (d) => (log += String(d)))
    child.stderr!.on("data", (d) => (log += String(d)))
    runners.push({ child, log: () => log })
    return child
  }
  const succeededSince = async (since: number) =>
    new Set((await sqlRows<{ store_id: string }>(db.url,
      `SELECT store_id FROM sync.runs WHERE command = 'sync' AND status = 'succeeded' AND started_at > to_timestamp($1 / 1000.0)`,
      [since])).map((r) => r.store_id))
  const expectExact = async () => {
    for (const { storeId } of STORES) {
      const rows = await sqlRows<Record<string, string | number>>(db.url,
        `SELECT day::text AS day, currency, orders_count, to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
                to_char(refunds, 'FM999999999990.00') AS refunds, to_char(net_sales, 'FM999999999990.00') AS net_sales
         FROM analytics.daily_net_sales WHERE store_id = $1 ORDER BY day, currency`, [storeId])
      const expected = dailyNetSales(sims.get(storeId)!.state)
      expect(expected.length).toBeGreaterThan(20)
      expect(rows, storeId).toEqual(expected.map((r) => ({ ...r })))
    }
  }

  beforeAll(async () => {
    db = await freshDatabase()
    // The runners migrate too, before their first sync; the test reads sync.runs before that.
    await Effect.runPromise(migrate.pipe(Effect.provide(pgLayer(Redacted.make(db.url)))))
    for (const { storeId, timezone, seed } of STORES) {
      sims.set(storeId, await startStoreSimulator({ timezone, data: { seed, orders: 150, start: "2026-01-05", days: 45 } }))
    }
  })
  afterAll(async () => {
    await Promise.all(runners.filter((r) => r.child.exitCode === null && r.child.signalCode === null).map((r) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => r.child.kill("SIGKILL"), 20_000)
        r.child.on("exit", () => (clearTimeout(force), resolve()))
        r.child.kill("SIGTERM")
      })))
    if (!passed) for (const r of runners) console.log(r.log().slice(-4000))
    if (!passed) console.log(JSON.stringify(await sqlRows(db.url, "SELECT store_id, status, error FROM sync.runs")))
    for (const sim of sims.values()) await sim.close()
    await db?.drop()
  })

  it("keeps every store exact through a runner's death, one run of a store at a time", async () => {
    const started = Date.now()
    const [first] = [await startRunner(), await startRunner()]
    await waitFor("every store synced", async () => ((await succeededSince(started)).size === STORES.length ? true : undefined), 45_000)
    await expectExact()

    first!.kill("SIGKILL")
    const killedAt = Date.now()
    await waitFor("every store synced again after the kill", async () =>
      ((await succeededSince(killedAt)).size === STORES.length ? true : undefined), 45_000)
    await expectExact()

    // A run left 'running' by the killed runner ended when it died.
    const overlaps = await sqlRows(db.url, `
      WITH r AS (
        SELECT id, store_id, started_at,
               coalesce(finished_at, CASE WHEN started_at < to_timestamp($1 / 1000.0) THEN to_timestamp($1 / 1000.0) ELSE 'infinity' END) AS ended
        FROM sync.runs WHERE status <> 'skipped')
      SELECT a.store_id, a.id, b.id AS other FROM r a JOIN r b
        ON a.store_id = b.store_id AND a.id < b.id AND b.started_at < a.ended AND a.started_at < b.ended`, [killedAt])
    expect(overlaps).toEqual([])
    passed = true
  }, 240_000)
})
