// The store registry through the real CLI: two simulated stores registered with their own keys, synced by
// `stores sync`, each exact against its simulator; secrets only ever stored encrypted under the master key.
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MarketingSimulator, startMarketingSimulator } from "../../src/simulator/marketing/index.js"
import { dailyNetSales, manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"



const SECRET_A = "cs_alpha_secret_7f3a9c"
const SECRET_B = "cs_bravo_secret_2d8e41"
const WEBHOOK_SECRET = "whsec_charlie_5b1c"
const MARKETING_SECRET = "mk_delta_secret_9e07"

interface Listed {
  store_id: string
  enabled: boolean
  every: string
  last_success_at: string | null
  last_error: string | null
  runner: string | null
}

describe("shopsync stores: a registry of stores in the warehouse", () => {
  let a: StoreSimulator
  let b: StoreSimulator
  let mk: MarketingSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>
  const masterKey = randomBytes(32).toString("base64")

  const netSales = (storeId: string) =>
    sqlRows<Record<string, string | number>>(db.url,
      `SELECT day::text AS day, currency, orders_count, to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
              to_char(refunds, 'FM999999999990.00') AS refunds, to_char(net_sales, 'FM999999999990.00') AS net_sales
       FROM analytics.daily_net_sales WHERE store_id = $1 ORDER BY day, currency`, [storeId])
  const list = async (): Promise<Listed[]> => {
    const run = await runCli(["stores", "list", "--json"], env)
    expect(run.code, run.stderr).toBe(0)
    return JSON.parse(run.stdout)
  }

  beforeAll(async () => {
    const clock = manualClock(Date.parse("2026-09-01T00:00:00Z"))
    a = await startStoreSimulator({ clock, consumerKey: "ck_alpha", consumerSecret: SECRET_A, timezone: "America/New_York", data: { seed: 21, orders: 250, start: "2026-06-01", days: 40 } })
    b = await startStoreSimulator({ clock, consumerKey: "ck_bravo", consumerSecret: SECRET_B, timezone: "Asia/Tokyo", data: { seed: 22, orders: 200, start: "2026-06-15", days: 30 } })
    mk = await startMarketingSimulator({ clients: [{ clientId: "mk_bravo", clientSecret: MARKETING_SECRET }] })
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, SHOPSYNC_MASTER_KEY: masterKey, MARKETING_ALLOW_HTTP: "1" }
  })
  afterAll(async () => {
    await a.close()
    await b.close()
    await mk.close()
    await db.drop()
  })

  it("refuses to add a store without a master key, saying how to make one", async () => {
    const run = await runCli(["stores", "add", "alpha", "--url", a.url, "--key", "ck_alpha"], { DATABASE_URL: db.url }, `${SECRET_A}\n`)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain("SHOPSYNC_MASTER_KEY")
    expect(run.stderr).toContain("openssl rand -base64 32")
    expect(await list()).toEqual([])
  })

  it("adds two stores: one secret from stdin, the other from --secret-env with the marketing secret on stdin", async () => {
    const added = await runCli(["stores", "add", "alpha", "--url", a.url, "--key", "ck_alpha", "--every", "90s", "--webhook-secret-env", "HOOK_SECRET"],
      { ...env, HOOK_SECRET: WEBHOOK_SECRET }, `${SECRET_A}\n`)
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toContain("added store alpha")
    const bravo = await runCli(["stores", "add", "bravo", "--url", b.url, "--key", "ck_bravo", "--secret-env", "BRAVO_SECRET",
      "--marketing-url", mk.baseUrl, "--marketing-client-id", "mk_bravo"], { ...env, BRAVO_SECRET: SECRET_B }, `${MARKETING_SECRET}\n`)
    expect(bravo.code, bravo.stderr).toBe(0)
    const again = await runCli(["stores", "add", "alpha", "--url", a.url, "--key", "ck_alpha"], env, `${SECRET_A}\n`)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain("store alpha is already registered")
    // Nothing on stdin: refused, naming the way out.
    const empty = await runCli(["stores", "add", "charlie", "--url", a.url, "--key", "ck_alpha"], env)
    expect(empty.code).toBe(1)
    expect(empty.stderr).toContain("standard input held no consumer secret")
  })

  it("refuses command-line mistakes with exit 64 before anything runs", async () => {
    for (const args of [
      ["stores", "add", "x", "--url", "https://shop.example/wp-json/wc", "--key", "k"],
      ["stores", "add", "x", "--url", a.url, "--key", "k", "--every", "soon"],
      ["stores", "add", "x", "--url", a.url, "--key", "k", "--marketing-url", mk.baseUrl],
      ["stores", "add", "bad id!", "--url", a.url, "--key", "k"],
      ["stores", "pause"],
      ["stores", "backfill", "alpha", "--since", "2026-02-30"]
    ]) {
      const run = await runCli(args, env)
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(64)
    }
  })

  it("lists the stores as a table and as JSON, without a secret", async () => {
    const text = await runCli(["stores", "list"], env)
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/store_id\s+enabled\s+every\s+last_success_at\s+last_error\s+runner/)
    expect(text.stdout).toMatch(/alpha\s+yes\s+90s\s+never/)
    expect(text.stdout).toMatch(/bravo\s+yes\s+5m\s+never/)
    const json = await list()
    expect(json.map((s) => [s.store_id, s.enabled, s.every, s.last_success_at, s.last_error, s.runner])).toEqual([
      ["alpha", true, "90s", null, null, null],
      ["bravo", true, "5m", null, null, null]
    ])
    for (const secret of [SECRET_A, SECRET_B, WEBHOOK_SECRET, MARKETING_SECRET]) {
      expect(text.stdout + text.stderr).not.toContain(secret)
      expect(JSON.stringify(json)).not.toContain(secret)
    }
  })

  it("syncs each store with its registered settings; each store's daily net sales are its simulator's", async () => {
    const alpha = await runCli(["stores", "sync", "alpha"], env)
    expect(alpha.code, alpha.stderr).toBe(0)
    expect(alpha.stdout).toMatch(/orders\s+\d+/)
    const bravo = await runCli(["stores", "sync", "bravo"], env)
    expect(bravo.code, bravo.stderr).toBe(0)
    for (const secret of [SECRET_A, SECRET_B, MARKETING_SECRET]) expect(alpha.stderr + bravo.stderr).not.toContain(secret)

    const expectedA = dailyNetSales(a.state).map((r) => ({ ...r }))
    const expectedB = dailyNetSales(b.state).map((r) => ({ ...r }))
    expect(expectedA.length).toBeGreaterThan(20)
    expect(expectedB.length).toBeGreaterThan(15)
    expect(await netSales("alpha")).toEqual(expectedA)
    expect(await netSales("bravo")).toEqual(expectedB)
    // bravo's contacts went to its marketing service; alpha has none.
    expect(bravo.stdout).toMatch(/marketing push: \d+ contacts? derived; [1-9]\d* created/)
    expect(mk.state.listContacts().length).toBeGreaterThan(0)
    expect(alpha.stdout).not.toContain("marketing push")

    const listed = await list()
    for (const s of listed) {
      expect(s.last_success_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
      expect(s.last_error).toBeNull()
    }
  })

  it("a wrong master key fails naming SHOPSYNC_MASTER_KEY, before any request reaches the store", async () => {
    const before = a.requests.length
    const wrong = await runCli(["stores", "sync", "alpha"], { ...env, SHOPSYNC_MASTER_KEY: randomBytes(32).toString("hex") })
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain("cannot decrypt store alpha's consumer secret")
    expect(wrong.stderr).toContain("SHOPSYNC_MASTER_KEY")
    expect(a.requests.length).toBe(before)
    const alpha = (await list()).find((s) => s.store_id === "alpha")!
    expect(alpha.last_error).toContain("cannot decrypt")

    // The key from a file works like the variable; a file others may read is warned about.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsync-key-"))
    const file = path.join(dir, "master.key")
    fs.writeFileSync(file, `${masterKey}\n`, { mode: 0o644 })
    const fromFile = await runCli(["stores", "sync", "alpha"], { DATABASE_URL: db.url, SHOPSYNC_MASTER_KEY_FILE: file })
    fs.rmSync(dir, { recursive: true })
    expect(fromFile.code, fromFile.stderr).toBe(0)
    expect(fromFile.stderr).toContain("is readable by every user (mode 0644)")
    expect(a.requests.length).toBeGreaterThan(before)
    expect((await list()).find((s) => s.store_id === "alpha")!.last_error).toBeNull()
  })

  it("rotates the master key: the old key opens secrets until `stores rotate-key` reseals them all under the new one", async () => {
    const sealed = async () => (await sqlRows<{ row: string }>(db.url,
      "SELECT concat_ws(',', store_id, consumer_secret, webhook_secret, marketing_client_secret) AS row FROM sync.store_registry ORDER BY store_id")).map((r) => r.row)
    const newKey = randomBytes(32).toString("base64")
    const during = { DATABASE_URL: db.url, SHOPSYNC_MASTER_KEY: newKey, SHOPSYNC_PREVIOUS_MASTER_KEY: masterKey }
    const before = await sealed()

    // Without any key it says which variables to set, stores or not.
    const keyless = await runCli(["stores", "rotate-key"], { DATABASE_URL: db.url })
    expect(keyless.code).toBe(1)
    expect(keyless.stderr).toContain("`shopsync stores rotate-key` needs the master key")

    // Without the old key nothing can be resealed: the command fails naming the store and changes no row.
    const refused = await runCli(["stores", "rotate-key"], { DATABASE_URL: db.url, SHOPSYNC_MASTER_KEY: newKey })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("cannot decrypt store alpha's consumer secret")
    expect(refused.stderr).toContain("SHOPSYNC_PREVIOUS_MASTER_KEY")
    expect(await sealed()).toEqual(before)

    // With both keys, syncs work before the rotation (the old key opens) and the rotation reseals all four secrets.
    expect((await runCli(["stores", "sync", "alpha", "--here"], during)).code).toBe(0)
    const rotated = await runCli(["stores", "rotate-key"], during)
    expect(rotated.code, rotated.stderr).toBe(0)
    expect(rotated.stdout).toContain("resealed 4 of 4 secrets of 2 stores under SHOPSYNC_MASTER_KEY")
    const after = await sealed()
    after.forEach((row, i) => expect(row).not.toEqual(before[i]))
    expect((await runCli(["stores", "rotate-key"], during)).stdout).toContain("nothing to reseal: all 4 secrets of 2 stores open with SHOPSYNC_MASTER_KEY")

    // Now the new key alone opens everything, the old one nothing.
    const old = await runCli(["stores", "sync", "bravo"], env)
    expect(old.code).toBe(1)
    expect(old.stderr).toContain("cannot decrypt store bravo's")
    env.SHOPSYNC_MASTER_KEY = newKey
    const synced = await runCli(["stores", "sync", "bravo"], env)
    expect(synced.code, synced.stderr).toBe(0)
    expect(await netSales("bravo")).toEqual(dailyNetSales(b.state).map((r) => ({ ...r })))
  })

  it("pauses, resumes and removes a store; a removed store's warehouse rows stay", async () => {
    const paused = await runCli(["stores", "pause", "alpha"], env)
    expect(paused.code, paused.stderr).toBe(0)
    expect((await list()).map((s) => [s.store_id, s.enabled])).toEqual([["alpha", false], ["bravo", true]])
    expect((await runCli(["stores", "list"], env)).stdout).toMatch(/alpha\s+paused/)
    expect((await runCli(["stores", "resume", "alpha"], env)).code).toBe(0)
    expect((await list()).map((s) => [s.store_id, s.enabled])).toEqual([["alpha", true], ["bravo", true]])
    const set = await runCli(["stores", "set", "alpha", "--every", "2m"], env)
    expect(set.code, set.stderr).toBe(0)
    expect((await list()).map((s) => [s.store_id, s.every])).toEqual([["alpha", "2m"], ["bravo", "5m"]])
    expect((await runCli(["stores", "set", "alpha"], env)).code).toBe(64)
    expect((await runCli(["stores", "set", "alpha", "--every", "0s"], env)).code).toBe(64)
    expect((await runCli(["stores", "set", "nope", "--every", "1m"], env)).stderr).toContain("store nope is not registered")

    const removed = await runCli(["stores", "remove", "bravo"], env)
    expect(removed.code, removed.stderr).toBe(0)
    expect(removed.stdout).toContain("its rows in the warehouse stay")
    expect((await list()).map((s) => s.store_id)).toEqual(["alpha"])
    expect(await netSales("bravo")).toEqual(dailyNetSales(b.state).map((r) => ({ ...r })))
    const gone = await runCli(["stores", "sync", "bravo"], env)
    expect(gone.code).toBe(1)
    expect(gone.stderr).toContain("store bravo is not registered")
    expect((await runCli(["stores", "pause", "bravo"], env)).code).toBe(1)
  })

  it("keeps no secret in plain text in any table of the warehouse", async () => {
    const tables = await sqlRows<{ name: string }>(db.url,
      `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
       WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`)
    let dump = ""
    for (const { name } of tables) {
      const rows = await sqlRows<{ row: string }>(db.url, `SELECT t::text AS row FROM ${name} t`)
      dump += rows.map((r) => r.row).join("\n")
    }
    // The dump holds the registry (alpha's key and sealed secret) and the stores' rows.
    expect(dump).toContain("ck_alpha")
    expect(dump.length).toBeGreaterThan(100_000)
    for (const secret of [SECRET_A, SECRET_B, WEBHOOK_SECRET, MARKETING_SECRET]) {
      expect(dump).not.toContain(secret)
      expect(dump).not.toContain(Buffer.from(secret).toString("hex"))
      expect(dump).not.toContain(Buffer.from(secret).toString("base64"))
    }
  })
})
