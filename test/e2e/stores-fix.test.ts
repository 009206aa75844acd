// A registered store an operator can fix, through the real CLI against store simulators: `stores add` and `stores set`
// try the key before saving (--no-check skips it), `stores set` changes the URL, key, secrets and interval, and the
// errors of a registered store name the `stores set` command that fixes them, never the STORE_* variables.
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MarketingSimulator, startMarketingSimulator } from "../../src/simulator/marketing/index.js"
import { dailyNetSales, manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { freePort } from "../support/ports.js"

const KEY = "ck_shop3_good"
const SECRET = "cs_shop3_good_5e1d"
const WRONG_SECRET = "cs_shop3_wrong_77aa"

interface Listed {
  store_id: string
  api_url: string
  every: string
  webhook_secret_set: boolean
  marketing_url: string | null
  updated_at: string
  last_error: string | null
}

describe("shopsync stores add/set: registered stores an operator can fix", () => {
  const clock = manualClock(Date.parse("2026-09-01T00:00:00Z"))
  const data = { seed: 33, orders: 90, start: "2026-07-01", days: 25 }
  let sim: StoreSimulator
  /** The same shop at a new address. */
  let moved: StoreSimulator
  let mk: MarketingSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>

  const list = async (): Promise<Listed[]> => {
    const run = await runCli(["stores", "list", "--json"], env)
    expect(run.code, run.stderr).toBe(0)
    return JSON.parse(run.stdout)
  }
  const shop3 = async () => (await list()).find((s) => s.store_id === "shop3")!
  const netSales = () =>
    sqlRows(db.url, `SELECT day::text AS day, currency, orders_count, to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
      to_char(refunds, 'FM999999999990.00') AS refunds, to_char(net_sales, 'FM999999999990.00') AS net_sales
      FROM analytics.daily_net_sales WHERE store_id = 'shop3' ORDER BY day, currency`)

  beforeAll(async () => {
    sim = await startStoreSimulator({ clock, consumerKey: KEY, consumerSecret: SECRET, data })
    moved = await startStoreSimulator({ clock, consumerKey: KEY, consumerSecret: SECRET, data })
    mk = await startMarketingSimulator({ clients: [{ clientId: "mk_shop3", clientSecret: "mk_shop3_secret" }] })
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, SHOPSYNC_MASTER_KEY: randomBytes(32).toString("base64"), MARKETING_ALLOW_HTTP: "1" }
  })
  afterAll(async () => {
    await sim.close()
    await moved.close()
    await mk.close()
    await db.drop()
  })

  it("`stores add` tries the key: a wrong one saves nothing and says which option to fix", async () => {
    const before = sim.requests.length
    const wrong = await runCli(["stores", "add", "shop3", "--url", sim.url, "--key", KEY], env, `${WRONG_SECRET}\n`)
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain("the store rejected the consumer key")
    expect(wrong.stderr).toContain("check --key and the consumer secret")
    expect(wrong.stderr).toContain("Nothing was saved")
    expect(wrong.stderr).not.toContain("STORE_CONSUMER")
    expect(wrong.stderr + wrong.stdout).not.toContain(WRONG_SECRET)
    // One request (the signature checked once: a refusal is not retried).
    expect(sim.requests.length - before).toBe(1)
    expect(await list()).toEqual([])

    const unreachable = await runCli(["stores", "add", "shop3", "--url", `http://127.0.0.1:${await freePort()}/wp-json/wc/v3`, "--key", KEY], env, `${SECRET}\n`)
    expect(unreachable.code).toBe(1)
    expect(unreachable.stderr).toContain("check --url and the network")
    expect(await list()).toEqual([])
  })

  it("--no-check saves a wrong key; its syncs then fail naming `stores set`, not STORE_* variables", async () => {
    const added = await runCli(["stores", "add", "shop3", "--url", sim.url, "--key", KEY, "--no-check"], env, `${WRONG_SECRET}\n`)
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toContain("key not tried: --no-check")
    const sync = await runCli(["stores", "sync", "shop3"], env)
    expect(sync.code).toBe(1)
    const fix = "`shopsync stores set shop3 --key ck_… --secret-env NAME`"
    expect(sync.stderr).toContain(fix)
    expect(sync.stderr).not.toContain("STORE_CONSUMER")
    // The registry's last_error, which a worker's every failed interval writes, says the same.
    const listed = await shop3()
    expect(listed.last_error).toContain(fix)
    expect(listed.last_error).not.toContain("STORE_CONSUMER")
  })

  it("`stores set` tries a new key first: a wrong one changes nothing, the right one fixes the store", async () => {
    const before = await shop3()
    const wrong = await runCli(["stores", "set", "shop3", "--key", KEY, "--secret-env", "SHOP3_SECRET"], { ...env, SHOP3_SECRET: WRONG_SECRET })
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain("check --key and the consumer secret")
    expect(wrong.stderr).toContain("Nothing was saved")
    expect((await shop3()).updated_at).toBe(before.updated_at)

    const fixed = await runCli(["stores", "set", "shop3", "--key", KEY], env, `${SECRET}\n`)
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(fixed.stdout).toContain("changed its consumer key and consumer secret; the store accepted the key")
    const sync = await runCli(["stores", "sync", "shop3"], env)
    expect(sync.code, sync.stderr).toBe(0)
    expect(await netSales()).toEqual(dailyNetSales(sim.state).map((r) => ({ ...r })))
    expect((await shop3()).last_error).toBeNull()
  })

  it("`stores set` changes the URL, interval, webhook secret and marketing service, each taken by the next sync", async () => {
    const nowhere = await runCli(["stores", "set", "shop3", "--url", `http://127.0.0.1:${await freePort()}/wp-json/wc/v3`], env)
    expect(nowhere.code).toBe(1)
    expect(nowhere.stderr).toContain("check --url and the network")
    expect((await shop3()).api_url).toBe(sim.url)

    const set = await runCli(["stores", "set", "shop3", "--url", moved.url, "--every", "2m", "--webhook-secret-env", "HOOKS",
      "--marketing-url", mk.baseUrl, "--marketing-client-id", "mk_shop3", "--marketing-secret-env", "MK"],
      { ...env, HOOKS: "whsec_shop3", MK: "mk_shop3_secret" })
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toContain("changed its URL, webhook secret, marketing service and interval (every 2m); the store accepted the key")
    const listed = await shop3()
    expect([listed.api_url, listed.every, listed.webhook_secret_set, listed.marketing_url]).toEqual([moved.url, "2m", true, mk.baseUrl])

    const before = moved.requests.length
    const sync = await runCli(["stores", "sync", "shop3"], env)
    expect(sync.code, sync.stderr).toBe(0)
    expect(moved.requests.length).toBeGreaterThan(before)
    expect(sync.stdout).toMatch(/marketing push: \d+ contacts? derived; [1-9]\d* created/)
    expect(await netSales()).toEqual(dailyNetSales(moved.state).map((r) => ({ ...r })))
  })

  it("refuses a `stores set` with nothing to change, or for an unknown store", async () => {
    expect((await runCli(["stores", "set", "shop3"], env)).code).toBe(64)
    expect((await runCli(["stores", "set", "shop3", "--marketing-url", mk.baseUrl], env)).code).toBe(64)
    const unknown = await runCli(["stores", "set", "nope", "--every", "1m"], env)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("store nope is not registered")
    const again = await runCli(["stores", "add", "shop3", "--url", sim.url, "--key", KEY, "--no-check"], env, `${SECRET}\n`)
    expect(again.stderr).toContain("`shopsync stores set shop3` changes its URL, keys, secrets or interval")
  })
})
