// A worker on one machine, the way its own refusal says: `warehouse start`, then the worker on
// DATABASE_URL=$(shopsync warehouse url), keeping two registered stores exact against their simulators.
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { dailyNetSales, manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli, startCli, stopAll } from "../support/cli.js"
import { reachableTempDir } from "../support/data-root.js"
import { sqlRows } from "../support/database.js"
import { freePort } from "../support/ports.js"
import { eventually } from "../support/serve.js"

describe("shopsync worker on one machine", () => {
  const clock = manualClock(Date.parse("2026-09-01T00:00:00Z"))
  const sims = new Map<string, StoreSimulator>()
  let dataDir: string
  let home: Record<string, string>
  let worker: ReturnType<typeof startCli> | undefined
  let dbUrl: string

  beforeAll(async () => {
    for (const [storeId, seed] of [["one", 41], ["two", 42]] as const) {
      sims.set(storeId, await startStoreSimulator({
        clock, consumerKey: `ck_${storeId}`, consumerSecret: `cs_${storeId}`, data: { seed, orders: 80, start: "2026-07-01", days: 20 }
      }))
    }
    dataDir = reachableTempDir("shopsync-worker-")
    home = { SHOPSYNC_DATA_DIR: dataDir, SHOPSYNC_PG_PORT: String(await freePort()) }
  })
  afterAll(async () => {
    if (worker) await stopAll([worker], 15_000)
    await runCli(["warehouse", "stop"], home)
    for (const sim of sims.values()) await sim.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it("without DATABASE_URL, refuses naming the one-machine way", async () => {
    const run = await runCli(["worker"], { ...home, SHOPSYNC_MASTER_KEY: randomBytes(32).toString("base64") })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain("`shopsync warehouse start`, then `DATABASE_URL=$(npx shopsync warehouse url) npx shopsync worker`")
    expect(run.stderr).not.toContain("cannot use it")
  })

  it("following it, a worker keeps two registered stores exact", async () => {
    expect((await runCli(["warehouse", "start"], home)).code).toBe(0)
    const url = await runCli(["warehouse", "url"], home)
    expect(url.code, url.stderr).toBe(0)
    const env = { DATABASE_URL: url.stdout.trim(), SHOPSYNC_MASTER_KEY: randomBytes(32).toString("base64") }
    for (const [storeId, sim] of sims) {
      const added = await runCli(["stores", "add", storeId, "--url", sim.url, "--key", `ck_${storeId}`, "--secret-env", "SECRET", "--every", "1h"],
        { ...env, SECRET: `cs_${storeId}` })
      expect(added.code, added.stderr).toBe(0)
    }
    worker = startCli(["worker"], {
      ...env, SHOPSYNC_RUNNER_HOST: "127.0.0.1", SHOPSYNC_RUNNER_PORT: String(await freePort()),
      SHOPSYNC_HTTP_PORT: String(await freePort()), SHOPSYNC_ADMIN_PORT: String(await freePort())
    })
    const netSales = (storeId: string) =>
      sqlRows(env.DATABASE_URL, `SELECT day::text AS day, currency, orders_count, to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
        to_char(refunds, 'FM999999999990.00') AS refunds, to_char(net_sales, 'FM999999999990.00') AS net_sales
        FROM analytics.daily_net_sales WHERE store_id = $1 ORDER BY day, currency`, [storeId])
    for (const [storeId, sim] of sims) {
      const expected = dailyNetSales(sim.state).map((r) => ({ ...r }))
      expect(expected.length).toBeGreaterThan(10)
      await eventually(async () => (expect(await netSales(storeId)).toEqual(expected), true), 90_000, `${storeId}'s daily net sales`)
    }
    dbUrl = env.DATABASE_URL
  })

  it("a worker's sync that finds the store's lock held waits for it to be released instead of skipping its turn", async () => {
    // The lock held the way a run closing elsewhere holds it (its session's advisory lock): what a store whose shard
    // just moved meets. Skipped, the slot's one message would be spent until the next slot, an hour away here.
    const holder = new pg.Client({ connectionString: dbUrl })
    await holder.connect()
    try {
      await holder.query("SELECT pg_advisory_lock(hashtext('shopsync:sync'), hashtext('one'))")
      const sync = runCli(["stores", "sync", "one"], { DATABASE_URL: dbUrl })
      // Released once the worker's run has met it (it says it waits) or has been skipped on it (recorded).
      const skipped = async () =>
        (await sqlRows<{ n: number }>(dbUrl, "SELECT count(*)::int AS n FROM sync.runs WHERE store_id = 'one' AND outcome = 'skipped_locked'"))[0]!.n
      await eventually(async () => worker!.output().stderr.includes("holds the lock for store one") || (await skipped()) > 0, 30_000, "the worker's run meeting the lock")
      await holder.query("SELECT pg_advisory_unlock(hashtext('shopsync:sync'), hashtext('one'))")
      const done = await sync
      expect(done.code, done.stderr).toBe(0)
      expect(done.stdout).toContain("ran on worker")
      expect(await skipped()).toBe(0)
    } finally {
      await holder.end()
    }
  })
})
