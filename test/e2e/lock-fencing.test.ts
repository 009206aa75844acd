import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { dailyNetSales } from "../../src/simulator/store/reports/reference.js"
import { startCli } from "../support/cli.js"
import { sqlRows } from "../support/database.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { type OwnPostgres, startOwnPostgres } from "../support/own-postgres.js"
import { expectOrdersMatchStore, expectRefundsMatchStore, failedSync, ms, runStatuses, streamState } from "../support/scenarios.js"

const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

/** Waits until `check` holds (polling), failing after `seconds`. */
const until = async (check: () => Promise<boolean> | boolean, what: string, seconds = 30) => {
  const end = Date.now() + seconds * 1000
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** The session holding a run's locks (two-key advisory locks), not a page's per-document merge locks (one 64-bit key). */
const lockHolders = (h: Harness) =>
  h.rows<{ pid: number }>(
    `SELECT DISTINCT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY pid`
  ).then((rows) => rows.map((r) => r.pid))

/** Terminates the backends and waits until they are gone (and their locks with them). */
const terminate = async (h: Harness, pids: ReadonlyArray<number>) => {
  await h.rows("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS t(pid)", [pids])
  await until(async () => (await h.rows<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])", [pids]))[0]!.n === 0,
    "the terminated sessions gone")
}

/** Orders the running sync committed so far (none before it created the tables). */
const ordersCommitted = (h: Harness) =>
  h.rows<{ n: number }>("SELECT count(*)::int AS n FROM store.orders WHERE store_id = $1", [STORE_ID]).then((rows) => rows[0]!.n, () => 0)

/** Every store request waits this long: a run lasts long enough for things to happen to it. */
const slowStore = (millis: () => number) => ({ onRequest: () => (millis() > 0 ? sleep(millis()) : undefined) })

describe("a run whose lock session is killed", () => {
  const clock = manualClock(ms("2026-09-01T12:00:00Z"))
  let delay = 0
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({
      clock,
      data: { seed: 31, orders: 5000, start: "2026-01-01", days: 150 },
      ...slowStore(() => delay)
    })
  })
  afterAll(() => h.close())

  it("takes its lock again; a second run started at once waits for it, never beside it, and the data is exact", async () => {
    delay = 120
    const first = h.sync()
    await until(async () => (await ordersCommitted(h)) >= 300, "the first pages")
    const victims = await lockHolders(h)
    // One session holds both of the run's locks (sales and the other resources).
    expect(victims.length).toBe(1)
    const killedAt = Date.now()
    await terminate(h, victims)
    const second = h.sync({ wait: true })
    // The first run notices the lost session and holds its lock again on a new one, while it runs.
    await until(async () => (await lockHolders(h)).some((pid) => !victims.includes(pid)), "the lock taken again", 20)
    const retakenAfter = (Date.now() - killedAt) / 1000
    const [lease] = await h.rows<{ holder: number }>("SELECT holder::int AS holder FROM sync.run_leases WHERE store_id = $1 AND lock = 'sync'", [STORE_ID])
    const running = await runStatuses(h)
    expect(running.map((r) => r.status)).toEqual(["running"])
    expect(lease!.holder).toBe(running[0]!.id)
    delay = 0
    const [a, b] = await Promise.all([first, second])
    const runs = await runStatuses(h)
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "succeeded"])
    // Each call ran (neither found the lock taken and returned nothing): the first is the run that lost its session,
    // the second the one that waited, and no stream of either failed.
    expect([a?.runId, b?.runId]).toEqual(runs.map((r) => r.id))
    expect([...a!.streams, ...b!.streams].filter((s) => s.error !== undefined)).toEqual([])
    // Never at the same time: the second run's row starts after the first's ends.
    expect(runs[1]!.started.getTime()).toBeGreaterThanOrEqual(runs[0]!.finished!.getTime())
    console.info(`lock session killed: taken again by the running sync after ${retakenAfter.toFixed(1)} s`)

    const third = await h.sync()
    expect(third?.runId).toBe((await runStatuses(h)).at(-1)!.id)
    await expectOrdersMatchStore(h)
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })

  it("a run started without --wait on the freed lock finds the lease alive and does nothing", async () => {
    h.sim.state.createOrder({ status: "processing", currency: "USD", line_items: [{ product_id: h.sim.state.products[0]!.id, quantity: 1 }] })
    clock.advance(60_000)
    await h.rows("DELETE FROM sync.state WHERE store_id = $1 AND stream = 'orders'", [STORE_ID])
    const before = (await runStatuses(h)).length
    delay = 120
    const first = h.sync()
    await until(async () => (await runStatuses(h)).length > before && (await lockHolders(h)).length === 1, "the run's locks")
    await until(async () => (await ordersCommitted(h)) > 0, "a page")
    await terminate(h, await lockHolders(h))
    // The advisory lock is free now: the lease (its heartbeat still moving) is what keeps this run out.
    expect(await h.sync()).toBeUndefined()
    delay = 0
    const ran = await first
    const runs = (await runStatuses(h)).slice(before)
    expect(runs.map((r) => r.status)).toEqual(["succeeded"])
    expect(ran?.runId).toBe(runs[0]!.id)
    await expectOrdersMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})

describe("a run whose lease is taken", () => {
  let delay = 0
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({
      clock: manualClock(ms("2026-09-01T12:00:00Z")),
      data: { seed: 32, orders: 4000, start: "2026-01-01", days: 150 },
      ...slowStore(() => delay)
    })
  })
  afterAll(() => h.close())

  it("stops with RunLockLost and writes no page after the lease changed hands; the next run resumes to the exact data", async () => {
    delay = 120
    const first = h.sync()
    await until(async () => (await ordersCommitted(h)) >= 300, "the first pages")
    // Another run takes the lease (as one would after the holder's heartbeat stopped), and what the first had written
    // then is read in the same transaction: FOR SHARE makes the UPDATE wait for the holder's write in flight.
    const client = new pg.Client({ connectionString: h.dbUrl })
    await client.connect()
    await client.query("BEGIN")
    const { rows: [thief] } = await client.query<{ id: string }>(
      "INSERT INTO sync.runs (store_id, command, streams) VALUES ($1, 'sync', '{orders}') RETURNING id", [STORE_ID])
    await client.query("UPDATE sync.run_leases SET holder = $2 WHERE store_id = $1 AND lock = 'sync'", [STORE_ID, thief!.id])
    await client.query("UPDATE sync.runs SET heartbeat_at = now() WHERE id = $1", [thief!.id])
    const snapshot = `SELECT (SELECT count(*)::int FROM store.orders WHERE store_id = $1) AS orders,
                             (SELECT row_to_json(s)::text FROM sync.state s WHERE store_id = $1 AND stream = 'orders') AS state`
    const { rows: [atSteal] } = await client.query(snapshot, [STORE_ID])
    await client.query("COMMIT")
    const stolenAt = Date.now()

    const error = await failedSync(first)
    const noticedAfter = (Date.now() - stolenAt) / 1000
    expect(error).toContain("lost its lock")
    expect(error).toContain(`run ${thief!.id} took over`)
    expect(error).toContain("the next run resumes from the last checkpoints")
    // Nothing after the steal: the same orders and the same checkpoint (a page commit would have moved it).
    await sleep(500)
    const { rows: [after] } = await client.query(snapshot, [STORE_ID])
    expect(after).toEqual(atSteal)
    expect(atSteal.orders).toBeLessThan(h.sim.state.orders.length)
    const [loser] = await runStatuses(h)
    expect(loser!.status).toBe("failed")
    expect(loser!.error).toContain("lost its lock")
    console.info(`lease taken: the holder stopped ${noticedAfter.toFixed(1)} s later`)

    // The thief never heartbeats: the next run watches it, finds it still, and takes over from the checkpoints.
    delay = 0
    expect(await h.sync()).toBeDefined()
    await client.end()
    const runs = await runStatuses(h)
    expect(runs.map((r) => r.status)).toEqual(["failed", "failed", "succeeded"])
    expect(runs[2]!.started.getTime()).toBeGreaterThanOrEqual(runs[1]!.finished!.getTime())
    expect((await streamState(h)).find((s) => s.stream === "orders")!.last_error).toBeNull()
    await expectOrdersMatchStore(h)
    await expectRefundsMatchStore(h)
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})

describe("a warehouse restarting under a running sync (a PostgreSQL of its own)", () => {
  let own: OwnPostgres
  let server: OwnPostgres["server"]
  let url: string
  let sim: StoreSimulator
  const clock = manualClock(ms("2026-09-01T12:00:00Z"))
  let delay = 0
  let ordersRequests = 0
  const rows = <T,>(text: string, params: unknown[] = []) => sqlRows<T>(url, text, params)
  const view = () => ({ sim, rows }) as unknown as Harness
  const netSales = () =>
    rows<Record<string, string | number>>(
      `SELECT day::text AS day, currency, orders_count, to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
              to_char(refunds, 'FM999999999990.00') AS refunds, to_char(net_sales, 'FM999999999990.00') AS net_sales
       FROM analytics.daily_net_sales WHERE store_id = $1 ORDER BY day, currency`, [STORE_ID])
  const sync = (env: Record<string, string> = {}) =>
    startCli(["sync", "--streams", "orders,refunds", "--no-push"], {
      DATABASE_URL: url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo",
      STORE_ID, STORE_SETTLE_SECONDS: "0", ...env
    })

  beforeAll(async () => {
    own = await startOwnPostgres("lock-restart")
    server = own.server
    url = own.url
    sim = await startStoreSimulator({
      clock,
      data: { seed: 33, orders: 4000, start: "2026-01-01", days: 150 },
      onRequest: ({ path }) => {
        if (path === "/orders") ordersRequests += 1
        return delay > 0 ? sleep(delay) : undefined
      }
    })
  }, 60_000)
  afterAll(async () => {
    await sim?.close()
    await own?.remove()
  })

  it("a restart within the retry bound: the run goes on and exits 0 with the exact data", async () => {
    delay = 100
    ordersRequests = 0
    const cli = sync()
    await until(() => ordersRequests >= 8, "the first orders pages", 60)
    await server.stop()
    await sleep(1_000)
    await server.start()
    delay = 0
    const done = await cli.done
    expect(done.stderr).toContain("could not reach the warehouse")
    expect(done.code).toBe(0)
    await expectOrdersMatchStore(view())
    await expectRefundsMatchStore(view())
    expect(await netSales()).toEqual(dailyNetSales(sim.state).map((r) => ({ ...r })))
    const runs = await rows<{ status: string }>("SELECT status FROM sync.runs WHERE store_id = $1 ORDER BY id", [STORE_ID])
    expect(runs.map((r) => r.status)).toEqual(["succeeded"])
  }, 120_000)

  it("down past the bound: the run fails naming the warehouse, and the next run resumes to the exact data", async () => {
    const state = sim.state
    state.createOrder({ status: "completed", currency: "EUR", line_items: [{ product_id: state.products[0]!.id, quantity: 2 }] })
    clock.advance(60_000)
    await rows("DELETE FROM sync.state WHERE store_id = $1", [STORE_ID])
    delay = 100
    ordersRequests = 0
    const cli = sync({ SHOPSYNC_WAREHOUSE_RETRY_SECONDS: "3" })
    await until(() => ordersRequests >= 8, "the first orders pages", 60)
    const stoppedAt = Date.now()
    await server.stop()
    const done = await cli.done
    const failedAfter = (Date.now() - stoppedAt) / 1000
    delay = 0
    await server.start()
    expect(done.code).toBe(1)
    expect(done.stderr).toMatch(/shopsync: .*warehouse/)
    console.info(`warehouse down for good: the run stopped ${failedAfter.toFixed(1)} s after (bound 3 s)`)

    const next = await sync().done
    expect(next.code).toBe(0)
    await expectOrdersMatchStore(view())
    await expectRefundsMatchStore(view())
    expect(await netSales()).toEqual(dailyNetSales(sim.state).map((r) => ({ ...r })))
    const runs = await rows<{ status: string }>("SELECT status FROM sync.runs WHERE store_id = $1 ORDER BY id", [STORE_ID])
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "failed", "succeeded"])
  }, 120_000)
})
