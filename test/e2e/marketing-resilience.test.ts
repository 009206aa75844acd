// Bad input and a bad service never block the rest: invalid emails are quarantined, refused entries
// marked failed with the service's message, 429/5xx/dropped connections retried, a run that gives up
// leaves its work pending, and a crash between sending and recording re-sends the same absolute state.
import { Effect } from "effect"
import pg from "pg"
import { afterEach, describe, expect, it } from "vitest"
import { MarketingApi } from "../../src/marketing-client/api.js"
import { manualClock } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { type MarketingHarness, makeMarketingHarness, type MarketingHarnessOptions, requestsTo, STORE_ID } from "../support/marketing.js"

let open: MarketingHarness[] = []
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()))
  open = []
})

/** A harness whose store clock the test moves (changes made "now" are picked up by the next sync). */
const start = async (options: MarketingHarnessOptions = {}) => {
  const clock = manualClock(Date.parse("2026-03-01T12:00:00Z"))
  const m = await makeMarketingHarness({ ...options, store: { clock, ...options.store } })
  open.push(m)
  return { m, clock }
}

const derivedCount = async (m: MarketingHarness) =>
  (await m.store.rows<{ n: number }>("SELECT count(*)::int AS n FROM analytics.marketing_contacts WHERE store_id = $1", [STORE_ID]))[0]!.n

/** A completed guest order billed to `email`. */
const guestOrder = (m: MarketingHarness, email: string, first = "Guest", last = "Buyer") =>
  m.store.sim.state.createOrder({
    status: "completed",
    billing: { email, first_name: first, last_name: last, city: "Lyon", country: "FR" },
    line_items: [{ product_id: m.store.sim.state.products[0]!.id, quantity: 1 }]
  })

describe("marketing push with bad input", () => {
  it("merges case and space variants of one email into one contact, names from the customer first", async () => {
    const { m, clock } = await start()
    m.store.sim.state.createCustomer({ email: "Jane.Doe@Example.COM", first_name: "Jane", last_name: "Doe" })
    guestOrder(m, "  jane.doe@example.com ", "J.", "Doe-Order")
    guestOrder(m, "JANE.DOE@EXAMPLE.COM", "Janet", "D")
    guestOrder(m, "Max.Power@Example.com", "Maxi", "Old")
    clock.advance(5_000)
    guestOrder(m, "max.power@example.com ", "Max", "Power")
    clock.advance(2_000)
    await m.store.sync()

    const result = await m.push()
    expect(result.failed).toBe(0)
    const jane = m.mk.state.listContacts().filter((c) => c.values["email"]?.toLowerCase() === "jane.doe@example.com")
    expect(jane.map((c) => [c.values["email"], c.values["firstname"], c.values["lastname"], c.values["shop_orders_count"]]))
      .toEqual([["jane.doe@example.com", "Jane", "Doe", "2"]])
    expect(jane[0]!.tags.sort()).toEqual(["customer", "repeat-buyer"])
    const max = m.mk.state.listContacts().filter((c) => c.values["email"]?.toLowerCase() === "max.power@example.com")
    // A guest is named after the latest order billed to the email.
    expect(max.map((c) => [c.values["email"], c.values["firstname"], c.values["lastname"], c.values["country"]]))
      .toEqual([["max.power@example.com", "Max", "Power", "France"]])
    expect(m.mk.state.listContacts()).toHaveLength(result.derived)
  })

  it("quarantines invalid emails with their reason, shows them in status, and sends everyone else", async () => {
    const { m, clock } = await start()
    const bad = ["not-an-email", "two@@example.com", "a b@example.com", "nobody@localhost", "@example.com"]
    for (const email of bad) guestOrder(m, email)
    clock.advance(2_000)
    await m.store.sync()

    const result = await m.push()
    expect(result).toMatchObject({ quarantined: bad.length, failed: 0, gaveUp: undefined })
    expect(result.created).toBe(result.derived - bad.length)
    expect(m.mk.state.listContacts()).toHaveLength(result.derived - bad.length)
    const outbox = await m.outbox()
    expect(Object.fromEntries(outbox.filter((r) => r.status === "quarantined").map((r) => [r.email, r.reason]))).toEqual({
      "not-an-email": "no @ in the email address",
      "two@@example.com": "more than one @ in the email address",
      "a b@example.com": "the email address contains spaces",
      "nobody@localhost": "the part after the @ is not a domain name",
      "@example.com": "nothing before the @ of the email address"
    })
    expect(result.outbox).toMatchObject({ pending: 0, quarantined: bad.length, sent: result.derived - bad.length })

    // Quarantined rows are not retried: the next push sends nothing.
    expect(await m.push()).toMatchObject({ requests: 0, quarantined: 0 })

    const status = await runCli(["status"], { DATABASE_URL: m.store.dbUrl, STORE_ID })
    expect(status.code).toBe(0)
    expect(status.stdout).toContain("marketing outbox")
    expect(status.stdout).toMatch(new RegExp(`pending\\s+sent\\s+failed\\s+quarantined\\s+oldest_pending_age[\\s\\S]*\\n\\s*0\\s+${result.derived - bad.length}\\s+0\\s+${bad.length}`))
    expect(status.stdout).toContain("no @ in the email address")
    expect(status.stdout).toContain("not-an-email")
  })

  it("marks an entry the service refuses (4xx) failed with its message; the others are sent", async () => {
    const { m } = await start()
    await m.store.sync()
    // Someone created the field with another type: the service refuses every contact with a refund.
    await m.run(Effect.flatMap(MarketingApi, (api) =>
      api.call("POST", "/fields/contact/new", { json: { label: "Shop refunded total", alias: "shop_refunded_total", type: "boolean" } })))
    const refunded = (await m.store.rows<{ email: string }>(
      "SELECT email FROM analytics.marketing_contacts WHERE store_id = $1 AND refunded_total > 0 ORDER BY email", [STORE_ID]
    )).map((r) => r.email)
    expect(refunded.length).toBeGreaterThan(0)

    const result = await m.push()
    expect(result).toMatchObject({ failed: refunded.length, created: result.derived - refunded.length, gaveUp: undefined })
    const failed = (await m.outbox()).filter((r) => r.status === "failed")
    expect(failed.map((r) => r.email)).toEqual(refunded)
    expect(new Set(failed.map((r) => r.last_error))).toEqual(new Set(["400: shop_refunded_total: This value is not valid."]))
    expect(m.logs.join("\n")).toContain("contact field shop_refunded_total exists with type boolean")
    expect(m.mk.state.listContacts()).toHaveLength(result.derived - refunded.length)

    // Unchanged failed contacts wait for --retry-failed (after the cause is fixed).
    expect(await m.push()).toMatchObject({ batches: 0, requests: 0 })
    expect(await m.push({ retryFailed: true })).toMatchObject({ failed: refunded.length, created: 0 })
  })
})

describe("marketing push against an unreliable service", () => {
  it("recovers from 429, 5xx and dropped connections without duplicating contacts or fields", async () => {
    const { m } = await start()
    await m.store.sync()
    m.mk.setFaults([
      { kind: "503", pathPrefix: "/api/fields/contact/new", times: 1 },
      { kind: "drop", pathPrefix: "/api/fields/contact/new", times: 1, afterRequests: 2 },
      { kind: "429", pathPrefix: "/api/contacts/batch/new", times: 2 },
      { kind: "500", pathPrefix: "/api/contacts/batch/new", times: 1 },
      { kind: "502", pathPrefix: "/api/contacts/batch/new", times: 1 },
      { kind: "503", pathPrefix: "/api/contacts/batch/new", times: 1, retryAfterSeconds: 0, body: "empty" },
      { kind: "drop", pathPrefix: "/api/contacts/batch/new", times: 1 }
    ])
    const derived = await derivedCount(m)
    const result = await m.push()
    expect(result).toMatchObject({ created: derived, failed: 0, gaveUp: undefined, tokenRequests: 1 })
    expect(result.outbox.pending).toBe(0)
    expect(m.mk.state.listContacts()).toHaveLength(derived)
    const statuses = requestsTo(m.mk, "POST", "/api/contacts/batch/new").map((r) => r.status)
    for (const s of [429, 500, 502, 503, 0]) expect(statuses).toContain(s)
    // Creations whose answer was lost are looked up again, not repeated: one field per alias.
    const aliases = m.mk.state.listFields().map((f) => f.alias).filter((a) => a.startsWith("shop_"))
    expect(aliases.sort()).toEqual(["shop_currency", "shop_first_order", "shop_last_order", "shop_orders_count", "shop_refunded_total", "shop_spent_by_currency", "shop_total_spent"])
  })

  it("a run that gives up leaves every unsent contact pending, and the next run sends them", async () => {
    const { m } = await start()
    await m.store.sync()
    const derived = await derivedCount(m)
    m.mk.setFaults([{ kind: "503", pathPrefix: "/api/contacts/batch/new" }])
    const first = await m.push()
    expect(first.gaveUp).toContain("503")
    expect(first).toMatchObject({ created: 0, updated: 0, failed: 0 })
    expect(first.outbox).toMatchObject({ pending: derived, sent: 0 })
    expect(m.mk.state.listContacts()).toHaveLength(0)
    const tried = (await m.outbox()).filter((r) => r.attempts > 0)
    expect(tried.length).toBeGreaterThan(0)
    expect(tried.every((r) => r.status === "pending" && r.last_error?.includes("503"))).toBe(true)

    m.mk.setFaults([])
    const second = await m.push()
    expect(second).toMatchObject({ created: derived, gaveUp: undefined })
    expect(second.outbox).toMatchObject({ pending: 0, sent: derived })
  })

  it("a crash between sending and recording re-sends the same absolute state, without duplicates", async () => {
    const { m } = await start({ settings: { concurrency: 1 } })
    await m.store.sync()
    const derived = await derivedCount(m)
    expect(derived).toBeGreaterThan(200)
    // The process "dies" right after the first batch was accepted, before its result is written.
    await m.store.rows(`CREATE FUNCTION public.crash() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'simulated crash before recording'; END $$`)
    await m.store.rows(`CREATE TRIGGER crash BEFORE UPDATE ON marketing.outbox FOR EACH ROW
      WHEN (NEW.status = 'sent') EXECUTE FUNCTION public.crash()`)
    const crashed = await m.pushExit()
    expect(crashed._tag).toBe("Failure")
    const sentBeforeCrash = m.mk.state.listContacts()
    expect(sentBeforeCrash).toHaveLength(200)
    expect((await m.outbox()).every((r) => r.status === "pending")).toBe(true)

    await m.store.rows("DROP TRIGGER crash ON marketing.outbox")
    const resumed = await m.push()
    expect(resumed).toMatchObject({ updated: 200, created: derived - 200, failed: 0, gaveUp: undefined })
    const after = new Map(m.mk.state.listContacts().map((c) => [c.id, c]))
    expect(after.size).toBe(derived)
    for (const before of sentBeforeCrash) {
      const now = after.get(before.id)!
      expect({ values: now.values, tags: now.tags, points: now.points }).toEqual({ values: before.values, tags: before.tags, points: before.points })
    }
    expect((await m.outbox()).every((r) => r.status === "sent")).toBe(true)
  })

  it("a push while another push of the store holds its lock does nothing and says so", async () => {
    const { m } = await start()
    await m.store.sync()
    const other = new pg.Client({ connectionString: m.store.dbUrl })
    await other.connect()
    try {
      await other.query("SELECT pg_advisory_lock(hashtext('shopsync:push'), hashtext($1))", [STORE_ID])
      const result = await m.push()
      expect(result).toMatchObject({ skipped: true, created: 0, requests: 0 })
      expect(m.mk.requests).toHaveLength(0)
    } finally {
      await other.end()
    }
    expect(await m.push()).toMatchObject({ skipped: false, created: await derivedCount(m) })
  })
})
