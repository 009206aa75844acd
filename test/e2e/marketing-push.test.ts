// The contract of the marketing push: every registered customer and every distinct billing email of a
// counted order becomes exactly one contact (emails case-insensitive) with email, firstname and lastname,
// in batches of at most 200 under one client-credentials token; pushing again changes nothing.
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MarketingClient } from "../../src/marketing-client/client.js"
import { orderAddresses } from "../../src/simulator/store/orders/order-json.js"
import type { StoreState } from "../../src/simulator/store/index.js"
import { CLIENT_SECRET, failureOf, type MarketingHarness, makeMarketingHarness, requestsTo } from "../support/marketing.js"

const COUNTED = new Set(["processing", "completed", "on-hold", "refunded"])

/** The contacts the contract asks for, computed from the store simulator's own state. */
const expectedContacts = (state: StoreState) => {
  const contacts = new Map<string, { firstname: string; lastname: string }>()
  for (const c of state.customers) contacts.set(c.email.trim().toLowerCase(), { firstname: c.firstName, lastname: c.lastName })
  const counted = state.orders.filter((o) => COUNTED.has(o.status)).sort((a, b) => b.created - a.created || b.id - a.id)
  for (const o of counted) {
    const billing = orderAddresses(o).billing
    const email = billing.email?.trim().toLowerCase()
    // Latest order first: the first one seen names a guest.
    if (email && !contacts.has(email)) contacts.set(email, { firstname: billing.first_name, lastname: billing.last_name })
  }
  return contacts
}

describe("marketing push: the contract", () => {
  let m: MarketingHarness
  beforeAll(async () => {
    m = await makeMarketingHarness({ store: { data: { seed: 21, orders: 1200, customers: 260, start: "2026-01-05", days: 60 } } })
    await m.store.sync()
  })
  afterAll(() => m.close())

  it("makes every registered customer and every distinct billing email of a counted order exactly one contact", async () => {
    const expected = expectedContacts(m.store.sim.state)
    // The generated guests type some emails with capitals: the same person must not become two contacts.
    const variants = m.store.sim.state.orders.map((o) => orderAddresses(o).billing.email ?? "").filter((e) => e !== e.toLowerCase())
    expect(variants.length).toBeGreaterThan(0)

    const result = await m.push()
    expect(result).toMatchObject({ derived: expected.size, created: expected.size, updated: 0, failed: 0, quarantined: 0, gaveUp: undefined })
    expect(result.outbox).toMatchObject({ pending: 0, sent: expected.size, failed: 0, quarantined: 0 })

    const contacts = m.mk.state.listContacts()
    const byEmail = new Map(contacts.map((c) => [c.values["email"]!.toLowerCase(), c]))
    expect(contacts).toHaveLength(expected.size)
    expect(byEmail.size).toBe(expected.size)
    for (const [email, names] of expected) {
      const contact = byEmail.get(email)
      expect(contact, email).toBeDefined()
      expect({ email: contact!.values["email"], firstname: contact!.values["firstname"], lastname: contact!.values["lastname"] })
        .toEqual({ email, firstname: names.firstname, lastname: names.lastname })
    }
  })

  it("upserts through POST /api/contacts/batch/new in batches of at most 200", async () => {
    const batches = requestsTo(m.mk, "POST", "/api/contacts/batch/new")
    const contacts = m.mk.state.listContacts().length
    expect(contacts).toBeGreaterThan(400)
    // The simulator answers a batch of more than 200 with HTTP 500: every one succeeded.
    expect(batches).toHaveLength(Math.ceil(contacts / 200))
    expect(batches.every((b) => b.status === 201)).toBe(true)
  })

  it("carries commerce facts as custom fields created once, and tags", async () => {
    const fields = m.mk.state.listFields().map((f) => f.alias)
    for (const alias of ["shop_orders_count", "shop_total_spent", "shop_refunded_total", "shop_first_order", "shop_last_order"]) {
      expect(fields.filter((f) => f === alias), alias).toHaveLength(1)
    }
    const [facts] = await m.store.rows<{ email: string; orders_count: number; last_order_day: string; total_spent: string }>(
      `SELECT email, orders_count, last_order_day::text AS last_order_day, total_spent::text AS total_spent
       FROM analytics.marketing_contacts WHERE store_id = 'test' AND orders_count >= 2 ORDER BY email LIMIT 1`
    )
    const contact = m.mk.state.findContactByEmail(facts!.email)!
    expect(contact.values["shop_orders_count"]).toBe(String(facts!.orders_count))
    expect(contact.values["shop_last_order"]).toBe(facts!.last_order_day)
    expect(Number(contact.values["shop_total_spent"])).toBe(Number(facts!.total_spent))
    expect(contact.tags).toContain("repeat-buyer")
    const customer = m.store.sim.state.customers[0]!
    expect(m.mk.state.findContactByEmail(customer.email)!.tags).toContain("customer")
  })

  it("fetches one token for the whole push and shares it", async () => {
    expect(m.mk.state.tokenRequests).toBe(1)
    expect(m.mk.state.tokenRequestsFor("client_credentials")).toBe(1)
    expect(requestsTo(m.mk, "POST", "/api/contacts/batch/new").length).toBeGreaterThan(1)
  })

  it("a second push with nothing changed sends nothing at all", async () => {
    const before = m.mk.requests.length
    const result = await m.push()
    expect(result).toMatchObject({ enqueued: 0, created: 0, updated: 0, batches: 0, requests: 0, tokenRequests: 0 })
    expect(result.unchanged).toBe(result.derived)
    expect(m.mk.requests.length).toBe(before)
  })

  it("after a change in the store, sends only the changed contact, with the cached token", async () => {
    const customer = m.store.sim.state.customers[3]!
    m.store.sim.state.updateCustomer(customer.id, { last_name: "Renamed" })
    await m.store.sync({ streams: ["customers"] })
    const result = await m.push()
    expect(result).toMatchObject({ enqueued: 1, created: 0, updated: 1, batches: 1, tokenRequests: 0 })
    expect(m.mk.state.findContactByEmail(customer.email)!.values["lastname"]).toBe("Renamed")
    expect(m.mk.state.listContacts()).toHaveLength(result.derived)
  })

  it("puts no secret or token in any request URL, log line or error message", async () => {
    expect(m.mk.requests.length).toBeGreaterThan(5)
    for (const r of m.mk.requests) {
      expect(r.hadTokenInUrl, r.url).toBe(false)
      expect(r.url).not.toContain(CLIENT_SECRET)
      expect(r.url).not.toMatch(/client_secret|access_token|[A-Za-z0-9_-]{40,}/)
    }
    const logs = m.logs.join("\n")
    expect(logs).toContain("marketing push finished")
    expect(logs).not.toContain(CLIENT_SECRET)
    expect(logs).not.toMatch(/Bearer|[A-Za-z0-9_-]{40,}/)

    const wrong = m.client({ clientSecret: Redacted.make("wrong-secret-value") })
    const failure = failureOf(await wrong.runExit(Effect.flatMap(MarketingClient, (c) => c.listHooks)))
    await wrong.dispose()
    expect(failure?._tag).toBe("MarketingAuthFailed")
    expect(failure?.message).toContain("MARKETING_CLIENT_SECRET")
    expect(failure?.message).toContain("The client credentials are invalid")
    expect(failure?.message).not.toContain("wrong-secret-value")
  })
})
