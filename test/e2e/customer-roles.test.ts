import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, type StoreState } from "../../src/simulator/store/index.js"
import type { CustomerRecord } from "../../src/simulator/store/model.js"
import { orderAddresses } from "../../src/simulator/store/orders/order-json.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { COUNTED, ms } from "../support/scenarios.js"

const email = (e: string) => e.trim().toLowerCase()

/** The registered-customer contacts (tag `customer`) and every contact's email, with SHOPSYNC_CONTACT_ROLES as `roles` (unset: the default). */
const contacts = async (h: Harness, roles?: string) => {
  const client = new pg.Client({ connectionString: h.dbUrl })
  await client.connect()
  try {
    if (roles !== undefined) await client.query("SELECT set_config('shopsync.contact_roles', $1, false)", [roles])
    const rows = (await client.query<{ email: string; is_customer: boolean }>(
      "SELECT email, is_customer FROM analytics.marketing_contacts WHERE store_id = $1", [STORE_ID])).rows
    return { all: new Set(rows.map((r) => r.email)), registered: new Set(rows.filter((r) => r.is_customer).map((r) => r.email)) }
  } finally {
    await client.end()
  }
}

describe("customers of every role", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let state: StoreState
  beforeAll(async () => {
    h = await makeHarness({
      clock,
      data: { seed: 31, orders: 240, customers: 50, start: "2026-03-01", days: 60, roles: { subscriber: 4, wholesale_buyer: 3, shop_manager: 1 } }
    })
    state = h.sim.state
  })
  afterAll(() => h.close())

  /** Emails billed by a counted order, from the store's own documents. */
  const billedEmails = () => new Set(state.orders.filter((o) => COUNTED.has(o.status)).map((o) => email(orderAddresses(o).billing.email ?? "")))
  const unbilled = (c: CustomerRecord) => !state.orders.some((o) => email(orderAddresses(o).billing.email ?? "") === email(c.email))

  it("every customer lands with its role: subscribers, staff and the shop's own role included", async () => {
    expect(state.customers.filter((c) => c.role === "subscriber")).toHaveLength(4)
    await h.sync()
    const rows = await h.rows<{ id: number; role: string }>("SELECT id::int AS id, role FROM store.customers WHERE store_id = $1 AND deleted_at IS NULL", [STORE_ID])
    expect(new Map(rows.map((r) => [r.id, r.role]))).toEqual(new Map(state.customers.map((c) => [c.id, c.role])))
  })

  it("a role given later is read on the next scan, also for a custom role the store just registered", async () => {
    const [later] = state.customers.filter((c) => c.role === "customer")
    state.setCustomerRole(later!.id, "vip_member")
    clock.advance(60_000)
    await h.sync({ streams: ["customers"] })
    const [row] = await h.rows<{ role: string }>("SELECT role FROM store.customers WHERE store_id = $1 AND id = $2", [STORE_ID, later!.id])
    expect(row?.role).toBe("vip_member")
  })

  it("registered customers are customers and subscribers; staff count only through an order billed to them", async () => {
    const staffCandidates = state.customers.filter((c) => c.role === "customer" && unbilled(c))
    expect(staffCandidates.length).toBeGreaterThanOrEqual(3)
    // The wholesale buyer who never ordered is made here, so the check below never depends on the seed leaving one.
    const [buyingAdmin, idleAdmin, idleWholesale] = staffCandidates
    state.setCustomerRole(buyingAdmin!.id, "administrator")
    state.setCustomerRole(idleAdmin!.id, "administrator")
    state.setCustomerRole(idleWholesale!.id, "wholesale_buyer")
    state.createOrder({
      status: "completed", currency: "USD", customer_id: buyingAdmin!.id,
      billing: { email: buyingAdmin!.email }, line_items: [{ product_id: state.products[0]!.id, quantity: 1 }]
    })
    clock.advance(60_000)
    await h.sync()

    const registered = (roles: ReadonlyArray<string>) => new Set(state.customers.filter((c) => roles.includes(c.role)).map((c) => email(c.email)))
    const byDefault = await contacts(h)
    expect(byDefault.registered).toEqual(registered(["customer", "subscriber"]))
    expect(byDefault.all).toEqual(new Set([...registered(["customer", "subscriber"]), ...billedEmails()]))
    expect(byDefault.all.has(email(buyingAdmin!.email))).toBe(true)
    expect(byDefault.registered.has(email(buyingAdmin!.email))).toBe(false)
    expect(byDefault.all.has(email(idleAdmin!.email))).toBe(false)
    // A role the contacts do not take by default, never billed: no contact at all.
    expect(byDefault.all.has(email(idleWholesale!.email))).toBe(false)

    const configured = await contacts(h, "customer,wholesale_buyer")
    expect(configured.registered).toEqual(registered(["customer", "wholesale_buyer"]))
    expect(configured.registered.has(email(idleWholesale!.email))).toBe(true)
  })
})
