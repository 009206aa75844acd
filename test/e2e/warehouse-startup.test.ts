import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { dailyNetSales } from "../../src/simulator/store/reports/reference.js"
import { startCli } from "../support/cli.js"
import { sqlRows } from "../support/database.js"
import { type OwnPostgres, startOwnPostgres } from "../support/own-postgres.js"
import { ms } from "../support/scenarios.js"

const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

/**
 * The start of a run against a warehouse that is down or restarting: its connection, migrate, locks and run row are
 * retried within SHOPSYNC_WAREHOUSE_RETRY_SECONDS like the rest of the run. Each test syncs into a database of its
 * own, so each run's start migrates an empty one (the longest stretch of its first seconds).
 */
describe("a warehouse down or restarting as a sync starts (a PostgreSQL of its own)", () => {
  let own: OwnPostgres
  let server: OwnPostgres["server"]
  let admin: string
  let sim: StoreSimulator
  let delay = 0
  let databases = 0
  const clock = manualClock(ms("2026-09-01T12:00:00Z"))

  /** A new empty database, and its URL. */
  const freshDatabase = async () => {
    const name = `startup_${(databases += 1)}`
    await sqlRows(admin, `CREATE DATABASE ${name}`)
    return admin.replace(/\/postgres$/, `/${name}`)
  }
  const sync = (url: string, env: Record<string, string> = {}) =>
    startCli(["sync", "--streams", "orders,refunds", "--no-push"], {
      DATABASE_URL: url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo",
      STORE_ID: "startup", STORE_SETTLE_SECONDS: "0", ...env
    })
  const netSales = (url: string) =>
    sqlRows<Record<string, string | number>>(url,
      `SELECT day::text AS day, currency, orders_count, to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
              to_char(refunds, 'FM999999999990.00') AS refunds, to_char(net_sales, 'FM999999999990.00') AS net_sales
       FROM analytics.daily_net_sales WHERE store_id = 'startup' ORDER BY day, currency`)
  const expectExact = async (url: string) => {
    expect(await netSales(url)).toEqual(dailyNetSales(sim.state).map((r) => ({ ...r })))
    const runs = await sqlRows<{ status: string }>(url, "SELECT status FROM sync.runs WHERE store_id = 'startup' ORDER BY id")
    expect(runs.map((r) => r.status)).toContain("succeeded")
  }
  const until = async (check: () => boolean, what: string) => {
    const end = Date.now() + 60_000
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
      await sleep(10)
    }
  }
  /** Resolves once a shopsync process holds a connection to the server: its run has begun talking to the warehouse. */
  const firstConnection = async () => {
    const end = Date.now() + 60_000
    for (;;) {
      const [row] = await sqlRows<{ n: number }>(admin, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'shopsync'")
      if (row!.n > 0) return
      if (Date.now() > end) throw new Error("timed out waiting for the sync's first warehouse connection")
      await sleep(10)
    }
  }

  beforeAll(async () => {
    own = await startOwnPostgres("startup")
    server = own.server
    admin = own.url
    sim = await startStoreSimulator({
      clock,
      data: { seed: 33, orders: 4000, start: "2026-01-01", days: 150 },
      onRequest: () => (delay > 0 ? sleep(delay) : undefined)
    })
  }, 60_000)
  afterAll(async () => {
    await sim?.close()
    await own?.remove()
  })

  it("started while the warehouse is down, which comes up 4 s later: the run waits, exits 0 with the exact data", async () => {
    const url = await freshDatabase()
    await server.stop()
    const cli = sync(url)
    // From the line the CLI writes just before it connects: the process's start-up alone may take seconds.
    await until(() => cli.output().stderr.includes("warehouse: PostgreSQL at"), "the sync's first connection")
    const connectingAt = Date.now()
    await sleep(4_000)
    await server.start()
    const done = await cli.done
    console.info(`warehouse down at start: the sync ended ${((Date.now() - connectingAt) / 1000).toFixed(1)} s after it first connected`)
    expect(done.code, done.stderr).toBe(0)
    expect(done.stderr).toContain("trying again in")
    await expectExact(url)
  }, 120_000)

  it("restarted in the run's first second (stopped at its first connection, started 3 s later): exits 0 with the exact data", async () => {
    const url = await freshDatabase()
    delay = 50
    const cli = sync(url)
    await firstConnection()
    await server.stop()
    await sleep(3_000)
    await server.start()
    const done = await cli.done
    delay = 0
    expect(done.code, done.stderr).toBe(0)
    expect(done.stderr).toContain("trying again in")
    await expectExact(url)
  }, 120_000)

  it("down past the bound: the sync waits the bound, then exits 1 naming the warehouse and the setting", async () => {
    const url = await freshDatabase()
    await server.stop()
    const cli = sync(url, { SHOPSYNC_WAREHOUSE_RETRY_SECONDS: "3" })
    await until(() => cli.output().stderr.includes("warehouse: PostgreSQL at"), "the sync's first connection")
    const connectingAt = Date.now()
    const done = await cli.done
    const seconds = (Date.now() - connectingAt) / 1000
    await server.start()
    console.info(`warehouse down for good: the sync exited ${seconds.toFixed(1)} s after it first connected (bound 3 s)`)
    expect(done.code).toBe(1)
    // It waited: today's code failed on the first refused connection, without a word of the bound.
    expect(done.stderr).toContain("trying again in")
    expect(done.stderr).toMatch(/shopsync: .*could not reach the warehouse.*SHOPSYNC_WAREHOUSE_RETRY_SECONDS/s)
    expect(seconds).toBeGreaterThanOrEqual(2.5)
    expect(seconds).toBeLessThan(15)
  }, 120_000)

  it("a wrong password or a missing database is not waited for: it fails at once with PostgreSQL's words", async () => {
    const url = await freshDatabase()
    const [password, missing] = await Promise.all([
      sync(url.replace(":startup-test@", ":wrong@")).done,
      sync(url.replace(/\/startup_\d+$/, "/no_such_database")).done
    ])
    for (const [done, said] of [[password, "password authentication failed"], [missing, "does not exist"]] as const) {
      expect(done.code).toBe(1)
      expect(done.stderr).toContain(said)
      expect(done.stderr).not.toContain("trying again in")
    }
  }, 120_000)
})
