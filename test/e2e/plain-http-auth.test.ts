// A store reached over plain http:// never gets the consumer secret in clear unless STORE_AUTH=basic asks for it, and
// then every run says so: the sync engine against a store as strict as WooCommerce, and the CLI as cron runs it.
import type { IncomingHttpHeaders } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { STREAMS } from "../../src/sync/catalogue.js"
import { runCli } from "../support/cli.js"
import { freshDatabase } from "../support/database.js"
import { type Harness, makeHarness } from "../support/harness.js"

const MINUTE = 60_000
const plain = { streams: STREAMS, named: false, customersFullScanHours: 24, deletionsHours: 0 } as const

describe("STORE_AUTH=auto over plain HTTP", () => {
  const clock = manualClock(Date.parse("2026-07-01T12:00:00Z"))
  const seen: Array<{ headers: IncomingHttpHeaders; query: URLSearchParams }> = []
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({
      clock,
      auth: { httpsOnlyBasic: true },
      onRequest: (info) => void seen.push(info),
      data: { seed: 5, orders: 120, start: "2026-05-01", days: 30 }
    })
  })
  afterAll(() => h.close())

  it("signs every request of a first and a no-change sync, sends no Basic header, and spends no request on a 401", async () => {
    await h.sync(plain)
    clock.advance(5 * MINUTE)
    const before = await h.requests()
    await h.sync(plain)
    // The store's clock, the listings' heads (orders, orders' trash, refunds, products, products' trash), the newest customers.
    expect((await h.requests()) - before).toBe(1 + 5 + 1)
    expect(seen.length).toBe(await h.requests())
    expect(seen.filter((r) => /^basic\s/i.test(r.headers.authorization ?? ""))).toEqual([])
    expect(seen.filter((r) => !r.query.has("oauth_signature"))).toEqual([])
    expect(h.sim.requests.filter((r) => r.status === 401)).toEqual([])
  })
})

describe("STORE_AUTH=basic over plain HTTP, through the CLI", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>
  beforeAll(async () => {
    // Lenient: reads Basic over any transport, as a misconfigured or proxied store might.
    sim = await startStoreSimulator({ clock: manualClock(Date.parse("2026-09-01T00:00:00Z")), data: { seed: 6, orders: 40, start: "2026-07-01", days: 30 } })
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "plain-basic" }
  })
  afterAll(async () => {
    await sim.close()
    await db.drop()
  })

  it("works, and every run warns once naming the risk and the fixes, never the secret", async () => {
    for (const _ of [1, 2]) {
      const run = await runCli(["sync", "--no-push"], { ...env, STORE_AUTH: "basic" })
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr.match(/STORE_AUTH=basic over plain HTTP sends the consumer key and secret/g)).toHaveLength(1)
      expect(run.stderr).toContain("use the store's https:// address in STORE_API_URL, or STORE_AUTH=oauth1")
      expect(run.stderr).not.toContain("cs_demo")
    }
  })

  it("STORE_AUTH=query stays refused over plain HTTP, before any request", async () => {
    const before = sim.requests.length
    const run = await runCli(["sync", "--no-push"], { ...env, STORE_AUTH: "query" })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain("STORE_AUTH=query sends the consumer key and secret in the URL")
    expect(sim.requests.length).toBe(before)
  })
})
