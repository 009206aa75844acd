// The commands as cron runs them: `sync` pushes unless --no-push (and without the marketing variables
// skips, said once), `push`, `status`, `marketing-hooks`; no secret ever printed.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MarketingSimulator, startMarketingSimulator } from "../../src/simulator/marketing/index.js"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"

describe("the marketing commands", () => {
  let store: StoreSimulator
  let mk: MarketingSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>
  let marketing: Record<string, string>
  const stderrs: string[] = []
  const run = async (args: string[], extra: Record<string, string | undefined> = {}) => {
    const result = await runCli(args, { ...env, ...extra })
    stderrs.push(result.stderr)
    return result
  }
  const derived = async () =>
    (await sqlRows<{ n: number }>(db.url, "SELECT count(*)::int AS n FROM analytics.marketing_contacts WHERE store_id = 'cli-mk'"))[0]!.n

  beforeAll(async () => {
    store = await startStoreSimulator({ clock: manualClock(Date.parse("2026-09-01T00:00:00Z")), data: { seed: 4, orders: 300, start: "2026-05-01", days: 30 } })
    mk = await startMarketingSimulator()
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, STORE_API_URL: store.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "cli-mk" }
    marketing = { MARKETING_BASE_URL: mk.baseUrl, MARKETING_CLIENT_ID: "mk_demo", MARKETING_CLIENT_SECRET: "mk_secret", MARKETING_ALLOW_HTTP: "1" }
  })
  afterAll(async () => {
    await store.close()
    await mk.close()
    await db.drop()
  })

  it("sync without the marketing variables skips the push and says so once", async () => {
    const result = await run(["sync"])
    expect(result.code).toBe(0)
    expect(result.stderr.match(/marketing push skipped/g)).toHaveLength(1)
    expect(result.stderr).toContain("MARKETING_BASE_URL, MARKETING_CLIENT_ID and MARKETING_CLIENT_SECRET are not set")
  })

  it("sync --no-push only enqueues; push sends; sync with nothing changed sends nothing", async () => {
    const queued = await run(["sync", "--no-push"], marketing)
    expect(queued.code).toBe(0)
    expect(queued.stdout).toContain(`marketing: ${await derived()} contact(s) enqueued`)
    expect(mk.state.listContacts()).toHaveLength(0)

    const pushed = await run(["push"], marketing)
    expect(pushed.code).toBe(0)
    const n = await derived()
    expect(pushed.stdout).toContain(`${n} created, 0 updated, 0 unchanged, 0 failed, 0 quarantined`)
    expect(pushed.stdout).toContain("1 token request")
    expect(mk.state.listContacts()).toHaveLength(n)

    const before = mk.requests.length
    const again = await run(["sync"], marketing)
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(`0 created, 0 updated, ${n} unchanged`)
    expect(mk.requests.length).toBe(before)

    const status = await run(["status"])
    expect(status.stdout).toMatch(new RegExp(`marketing outbox\\n.*\\n.*\\n\\s*0\\s+${n}\\s+0\\s+0`))
  })

  it("names missing or refused marketing settings, never showing the secret", async () => {
    const partial = await run(["push"], { MARKETING_BASE_URL: mk.baseUrl })
    expect(partial.code).toBe(1)
    expect(partial.stderr).toContain("MARKETING_CLIENT_ID")
    expect(partial.stderr).toContain("MARKETING_CLIENT_SECRET")

    const wrong = await run(["marketing-hooks", "list"], { ...marketing, MARKETING_CLIENT_SECRET: "mk_wrong_secret_value" })
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain("check MARKETING_CLIENT_ID and MARKETING_CLIENT_SECRET")
    expect(wrong.stderr).not.toContain("mk_wrong_secret_value")

    const apiRoot = await run(["push"], { ...marketing, MARKETING_BASE_URL: `${mk.baseUrl}/api` })
    expect(apiRoot.code).toBe(1)
    expect(apiRoot.stderr).toContain("without /api")
  })

  it("refuses a plain-http MARKETING_BASE_URL without MARKETING_ALLOW_HTTP=1 before any request reaches the service; with it, works", async () => {
    const unallowed = { ...marketing, MARKETING_ALLOW_HTTP: undefined }
    const before = mk.requests.length
    for (const args of [["push"], ["sync"], ["marketing-hooks", "list"]]) {
      const refused = await run(args, unallowed)
      expect(refused.code, args.join(" ")).toBe(1)
      expect(refused.stderr).toContain("MARKETING_BASE_URL uses http:")
      expect(refused.stderr).toContain("use the service's https:// address, or set MARKETING_ALLOW_HTTP=1")
    }
    const check = await run(["check"], unallowed)
    expect(check.stdout).toMatch(/^FAILED\s+marketing\.config\s.*MARKETING_BASE_URL uses http:/m)
    expect(check.stdout + check.stderr).toContain("or set MARKETING_ALLOW_HTTP=1 to accept an unencrypted connection")
    expect(mk.requests.length).toBe(before)

    const allowed = await run(["marketing-hooks", "list"], marketing)
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(mk.requests.length).toBeGreaterThan(before)
  })

  it("marketing-hooks ensure is idempotent, list shows the hook, remove deletes it", async () => {
    const args = ["marketing-hooks", "ensure", "--url", "https://hooks.example.com/cli", "--triggers", "mautic.lead_post_save_new,mautic.lead_post_save_update"]
    const created = await run(args, marketing)
    expect(created.code).toBe(0)
    expect(created.stdout).toMatch(/webhook \d+ created/)
    expect((await run(args, marketing)).stdout).toMatch(/webhook \d+ unchanged/)
    expect((await run(["marketing-hooks", "list"], marketing)).stdout).toContain("https://hooks.example.com/cli")
    expect((await run(["marketing-hooks", "remove", "--url", "https://hooks.example.com/cli"], marketing)).stdout).toMatch(/removed webhook\(s\) \d+/)
    expect(mk.state.listHooks()).toEqual([])
  })

  it("never prints a secret or a token", () => {
    const all = stderrs.join("\n")
    expect(all).not.toContain("mk_secret")
    expect(all).not.toContain("cs_demo")
    expect(all).not.toMatch(/Bearer|[A-Za-z0-9_-]{40,}/)
    for (const r of mk.requests) expect(r.hadTokenInUrl).toBe(false)
  })
})
