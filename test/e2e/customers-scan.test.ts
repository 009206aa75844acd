import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { SeenIds } from "../../src/sync/seen-ids.js"
import { unseenCustomers } from "../../src/sync/streams/customers.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { ms } from "../support/scenarios.js"

const syncedAt = async (h: Harness) =>
  new Map((await h.rows<{ id: number; synced: string }>(
    "SELECT id::int AS id, synced_at::text AS synced FROM store.customers WHERE store_id = $1 AND deleted_at IS NULL",
    [STORE_ID]
  )).map((r) => [r.id, r.synced]))

describe("the customers full scan", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    // 250 customers at 20 a page: 13 pages, fetched four at a time.
    h = await makeHarness({ clock, data: { seed: 71, orders: 400, customers: 250, start: "2026-03-01", days: 60 } }, { perPage: 20, concurrency: 4 })
  })
  afterAll(() => h.close())

  it("loads every customer; rescanning an unchanged store rewrites none; a changed customer is rewritten alone", async () => {
    const rowsOf = (summary: Awaited<ReturnType<Harness["sync"]>>) => summary!.streams.find((s) => s.stream === "customers")!.rows
    expect(rowsOf(await h.sync({ streams: ["customers"] }))).toBe(h.sim.state.customers.length)
    const first = await syncedAt(h)
    expect(first.size).toBe(h.sim.state.customers.length)

    clock.advance(60_000)
    // The run reports what it wrote: nothing.
    expect(rowsOf(await h.sync({ streams: ["customers"] }))).toBe(0)
    expect(await syncedAt(h)).toEqual(first)

    const renamed = h.sim.state.customers[17]!
    h.sim.state.updateCustomer(renamed.id, { first_name: "Renamed" })
    clock.advance(60_000)
    expect(rowsOf(await h.sync({ streams: ["customers"] }))).toBe(1)
    const after = await syncedAt(h)
    expect([...after].filter(([id, synced]) => first.get(id) !== synced).map(([id]) => id)).toEqual([renamed.id])
    const [row] = await h.rows<{ first_name: string }>("SELECT first_name FROM store.customers WHERE store_id = $1 AND id = $2", [STORE_ID, renamed.id])
    expect(row?.first_name).toBe("Renamed")
  })

  it("between full scans, fetches by id the customers of the orders the run loaded, once the orders stream has them all", async () => {
    await h.sync({ streams: ["orders"] })
    const state = h.sim.state
    const [buyer, bystander] = state.customers.slice(30, 32)
    state.updateCustomer(buyer!.id, { last_name: "Bought-Again" })
    state.updateCustomer(bystander!.id, { last_name: "Not-Fetched" })
    state.createOrder({ status: "completed", currency: "USD", customer_id: buyer!.id, line_items: [{ product_id: state.products[0]!.id, quantity: 1 }] })
    clock.advance(60_000)
    const summary = await h.sync({ streams: ["orders", "customers"], customersFullScanHours: 24 })
    expect(summary!.streams.find((s) => s.stream === "customers")!.rows).toBe(1)
    const names = new Map((await h.rows<{ id: number; last_name: string }>(
      "SELECT id::int AS id, last_name FROM store.customers WHERE store_id = $1 AND id = ANY($2)",
      [STORE_ID, [buyer!.id, bystander!.id]]
    )).map((r) => [r.id, r.last_name]))
    expect(names.get(buyer!.id)).toBe("Bought-Again")
    expect(names.get(bystander!.id)).not.toBe("Not-Fetched")
  })

  it("between full scans, reads the new registrations newest first, with one request for one customer when there are none", async () => {
    await h.sync({ streams: ["orders", "customers"], customersFullScanHours: 24 })
    const customerRequests = () => h.sim.requests.filter((r) => r.url.includes("/customers?")).map((r) => new URL(r.url, "http://x").searchParams)
    const before = customerRequests().length
    clock.advance(60_000)
    await h.sync({ streams: ["orders", "customers"], customersFullScanHours: 24 })
    const quiet = customerRequests().slice(before)
    expect(quiet.map((q) => [q.get("orderby"), q.get("order"), q.get("per_page")])).toEqual([["id", "desc", "1"]])

    const fresh = h.sim.state.createCustomer({ email: "new.registration@example.com", first_name: "New" })
    clock.advance(60_000)
    const seen = customerRequests().length
    const summary = await h.sync({ streams: ["orders", "customers"], customersFullScanHours: 24 })
    // The newest alone, then the newest page, down to a known id.
    expect(customerRequests().slice(seen).map((q) => q.get("per_page"))).toEqual(["1", "20"])
    expect(summary!.streams.find((s) => s.stream === "customers")!.rows).toBe(1)
    const [row] = await h.rows<{ email: string }>("SELECT email FROM store.customers WHERE store_id = $1 AND id = $2", [STORE_ID, fresh.id])
    expect(row?.email).toBe("new.registration@example.com")
  })

  it("marks deleted the customers the store no longer lists, and those alone", async () => {
    const gone = [h.sim.state.customers[5]!, h.sim.state.customers[200]!]
    for (const c of gone) h.sim.state.deleteCustomer(c.id, undefined)
    clock.advance(60_000)
    const summary = await h.sync({ streams: ["customers"] })
    expect(summary!.streams.find((s) => s.stream === "customers")!.deleted).toBe(2)
    const live = await syncedAt(h)
    expect(gone.filter((c) => live.has(c.id))).toEqual([])
    expect([...live.keys()].sort((a, b) => a - b)).toEqual(h.sim.state.customers.map((c) => c.id).sort((a, b) => a - b))
  })

  it("finds the live customers a scan did not see a chunk at a time, the chunks' edges included", async () => {
    const ids = [...(await syncedAt(h)).keys()].sort((a, b) => a - b)
    // The first, one on the edge of the second chunk of 7, one inside a later chunk, the last.
    const unseen = [ids[0]!, ids[13]!, ids[100]!, ids.at(-1)!]
    const seen = new SeenIds()
    for (const id of [...ids].reverse()) if (!unseen.includes(id)) seen.add(id)
    for (const chunk of [7, 1, ids.length, ids.length + 1]) expect(await h.run(unseenCustomers(seen, chunk))).toEqual(unseen)
  })
})
