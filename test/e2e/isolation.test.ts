// One stream's failure stops neither the other streams nor the contact push; the exit code still tells cron.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MarketingSimulator, startMarketingSimulator } from "../../src/simulator/marketing/index.js"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import pg from "pg"
import { runCli, startCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const STORE_ID = "cli-iso"

describe("the sync command when part of the store fails or is missing", () => {
  let mk: MarketingSimulator
  const stores: StoreSimulator[] = []
  const dbs: Array<Awaited<ReturnType<typeof freshDatabase>>> = []
  const setUp = async (storeId: string, options: Parameters<typeof startStoreSimulator>[0]) => {
    const store = await startStoreSimulator({
      clock: manualClock(Date.parse("2026-09-01T00:00:00Z")),
      data: { seed: 4, orders: 200, start: "2026-06-01", days: 30 },
      ...options
    })
    const db = await freshDatabase()
    stores.push(store)
    dbs.push(db)
    const env = {
      DATABASE_URL: db.url, STORE_API_URL: store.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: storeId,
      STORE_MAX_ATTEMPTS: "2", MARKETING_BASE_URL: mk.baseUrl, MARKETING_CLIENT_ID: "mk_demo", MARKETING_CLIENT_SECRET: "mk_secret", MARKETING_ALLOW_HTTP: "1"
    }
    const count = async (table: string, where = "") =>
      (await sqlRows<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM ${table} WHERE store_id = $1 ${where}`, [storeId]))[0]!.n
    /** Contacts the warehouse derives, and those the outbox records as sent. */
    const contacts = async () => ({ derived: await count("analytics.marketing_contacts"), sent: await count("marketing.outbox", "AND status = 'sent'") })
    return { store, env, contacts }
  }

  beforeAll(async () => {
    mk = await startMarketingSimulator()
  })
  afterAll(async () => {
    for (const s of stores) await s.close()
    for (const d of dbs) await d.drop()
    await mk.close()
  })

  it("a stream that keeps failing: the others load, contacts are pushed, the summary names it, and the exit code is 2", async () => {
    const { env, contacts } = await setUp(STORE_ID, { faults: [{ kind: "503", pathPrefix: "/products" }] })
    const run = await runCli(["sync"], env)
    expect(run.code).toBe(2)
    expect(run.stdout).toMatch(/products\s+0\s+0\s+[\d.]+\s+failed/)
    expect(run.stdout).toMatch(/orders\s+200\s/)
    expect(run.stderr).toMatch(/products: .*503/)
    const { derived, sent } = await contacts()
    expect(derived).toBeGreaterThan(0)
    expect(sent).toBe(derived)
  })

  it("a store serving only the sales routes: a plain sync exits 0, pushes every contact, and warns once per stream it cannot read", async () => {
    const { env, contacts } = await setUp(`${STORE_ID}-2`, { routes: { disabled: ["/webhooks", "/taxes", "/shipping"], forbidden: ["/settings", "/system_status"] } })
    const run = await runCli(["sync"], env)
    expect(run.code).toBe(0)
    expect(run.stderr.match(/webhooks: unavailable on this store, skipped/g)).toHaveLength(1)
    expect(run.stderr.match(/settings: unavailable on this store, skipped/g)).toHaveLength(1)
    expect(run.stdout).toMatch(/webhooks\s+0\s+0\s+[\d.]+\s+unavailable on this store/)
    const { derived, sent } = await contacts()
    expect(derived).toBeGreaterThan(0)
    expect(sent).toBe(derived)
  })

  it("a sync while another run holds the store's lock does nothing and exits 75, so cron can tell it from a success; --wait-timeout bounds the wait", async () => {
    const { env } = await setUp(`${STORE_ID}-3`, {})
    const other = new pg.Client({ connectionString: env.DATABASE_URL })
    await other.connect()
    try {
      await other.query("SELECT pg_advisory_lock(hashtext('shopsync:sync'), hashtext($1))", [env.STORE_ID])
      const run = await runCli(["sync"], env)
      expect(run.code).toBe(75)
      expect(run.stderr).toContain(`another shopsync run holds the lock of store ${env.STORE_ID}; nothing done (use --wait to wait for it)`)
      expect(run.stdout).toBe("")

      const started = Date.now()
      const waited = await runCli(["sync", "--wait-timeout", "3"], env)
      expect(waited.code).toBe(75)
      expect(waited.stderr).toContain(`still held the lock of store ${env.STORE_ID} after 3 s of waiting`)
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_000)
    } finally {
      await other.end()
    }
  })

  it("a reader that stops early (status | head -1) ends the command quietly, without an EPIPE trace", async () => {
    const { env } = await setUp(`${STORE_ID}-4`, {})
    // status needs a warehouse to show (on a database without one it says so and exits 1).
    expect((await runCli(["migrate"], env)).code).toBe(0)
    const cli = startCli(["status"], env)
    cli.child.stdout.once("data", () => cli.child.stdout.destroy())
    const run = await cli.done
    expect(run.stderr).not.toMatch(/EPIPE|Error:/)
    expect(run.code).toBe(0)
  })
})
