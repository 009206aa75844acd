// Per-parent passes (one request per order for its notes) are long on real stores: they checkpoint their progress,
// and they run outside the run lock, so a cron run during one still brings the sales data current.
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { STREAMS } from "../../src/sync/catalogue.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"

const notesRequests = (h: Harness) => h.sim.requests.filter((r) => /\/orders\/\d+\/notes/.test(new URL(r.url, "http://x").pathname)).length

describe("a children pass", () => {
  const clock = manualClock(Date.parse("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 9, orders: 300, start: "2026-04-01", days: 30 } })
  })
  afterAll(() => h.close())

  it("stopped mid-way, resumes after the last batch of orders it stored, reading each order's notes once", async () => {
    const orders = h.sim.state.orders.length
    h.sim.setFaults([{ kind: "503", pathPrefix: "/orders/", afterRequests: 120 }])
    const failed = await h.sync({ streams: ["orders", "order_notes"], childrenFullPassHours: 24 }).then(() => "", (e: Error) => e.message)
    expect(failed).toMatch(/order_notes: /)
    const [progress] = await h.rows<{ after: string }>("SELECT details->'pass'->>'after' AS after FROM sync.state WHERE stream = 'order_notes'")
    expect(Number(progress!.after)).toBeGreaterThan(0)

    h.sim.setFaults([])
    const before = notesRequests(h)
    await h.sync({ streams: ["orders", "order_notes"], childrenFullPassHours: 24 })
    const stored = h.sim.state.orders.filter((o) => o.id <= Number(progress!.after)).length
    expect(notesRequests(h) - before).toBe(orders - stored)
    const [notes] = await h.rows<{ n: number }>("SELECT count(*)::int AS n FROM store.order_notes WHERE store_id = $1 AND deleted_at IS NULL", [STORE_ID])
    expect(notes!.n).toBe(h.sim.state.orders.reduce((n, o) => n + h.sim.state.notes.of(o.id).length, 0))
    const [done] = await h.rows<{ pass: boolean; last: string | null }>(
      "SELECT details ? 'pass' AS pass, details->>'lastFullPass' AS last FROM sync.state WHERE stream = 'order_notes'"
    )
    expect(done).toMatchObject({ pass: false, last: expect.any(String) })
  })

  it("holds no lock a cron run needs for the sales data: a run while another refreshes the other resources loads orders and leaves them", async () => {
    const other = new pg.Client({ connectionString: h.dbUrl })
    await other.connect()
    try {
      await other.query("SELECT pg_advisory_lock(hashtext('shopsync:resources'), hashtext($1))", [STORE_ID])
      const order = h.sim.state.orders[0]!
      clock.advance(60_000)
      h.sim.state.updateOrder(order.id, { customer_note: "changed during a children pass" })
      clock.advance(60_000)
      const summary = await h.sync({ streams: STREAMS, named: false })
      expect(summary!.streams.find((s) => s.stream === "orders")?.rows).toBe(1)
      const left = summary!.streams.filter((s) => s.skipped === "another run is refreshing the other resources").map((s) => s.stream)
      expect(left.sort()).toEqual(STREAMS.filter((name) => !["orders", "refunds", "products", "customers", "reports"].includes(name)).sort())
      const [row] = await h.rows<{ note: string }>("SELECT doc->>'customer_note' AS note FROM store.orders WHERE id = $1", [order.id])
      expect(row!.note).toBe("changed during a children pass")
    } finally {
      await other.end()
    }
  })
})

describe("a children pass in shares (SHOPSYNC_CHILDREN_PASS_PERCENT)", () => {
  const clock = manualClock(Date.parse("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 19, orders: 400, start: "2026-04-01", days: 30 } })
  })
  afterAll(() => h.close())

  const storeNotes = () => h.sim.state.orders.reduce((n, o) => n + h.sim.state.notes.of(o.id).length, 0)
  const heldNotes = async () =>
    (await h.rows<{ n: number }>("SELECT count(*)::int AS n FROM store.order_notes WHERE store_id = $1 AND deleted_at IS NULL", [STORE_ID]))[0]!.n
  const sync = () => h.sync({ streams: ["orders", "order_notes"], childrenFullPassHours: 24, childrenPassPercent: 10 })

  it("reads a tenth of the orders' notes on a pass's first run, then, once it is worth 25 orders, what the time since asks for to end it within SHOPSYNC_CHILDREN_FULL_PASS_HOURS", async () => {
    const perRun: number[] = []
    const run = async () => {
      const before = notesRequests(h)
      await sync()
      perRun.push(notesRequests(h) - before)
    }
    await run()
    // A minute later: 400 orders × 60 s / 24 h is 1 order, fewer than a share's 25: it waits.
    clock.advance(60_000)
    await run()
    // Every 2.4 hours: a tenth of a day, a tenth of the orders.
    while (perRun.reduce((a, b) => a + b, 0) < 400 && perRun.length < 20) {
      clock.advance(8_640_000)
      await run()
    }
    // 400 orders: the share (never the 400 a first sync read before), none, then 40 a run.
    expect(perRun).toEqual([40, 0, 40, 40, 40, 40, 40, 40, 40, 40, 40])
    expect(await heldNotes()).toBe(storeNotes())
    const [done] = await h.rows<{ last: string | null }>("SELECT details->>'lastFullPass' AS last FROM sync.state WHERE stream = 'order_notes'")
    expect(done!.last).not.toBeNull()
  })

  it("once a pass has ended, an order that changes has its notes read at once, while the next pass goes on in shares", async () => {
    clock.advance(25 * 3600_000)
    const order = h.sim.state.orders.at(-1)!
    h.sim.state.updateOrder(order.id, { status: order.status === "completed" ? "processing" : "completed" })
    clock.advance(60_000)
    const before = notesRequests(h)
    await sync()
    // The new pass's first 40 orders, and the changed one (the last by id: not among them).
    expect(notesRequests(h) - before).toBe(41)
    expect(await heldNotes()).toBe(storeNotes())
  })

  it("an order changed in a run whose notes stream failed has its notes read by the next run, though nothing changes in between", async () => {
    clock.advance(3600_000)
    const order = h.sim.state.orders.at(-2)!
    h.sim.state.updateOrder(order.id, { status: order.status === "completed" ? "processing" : "completed" })
    clock.advance(60_000)
    h.sim.setFaults([{ kind: "503", pathPrefix: `/orders/${order.id}/notes` }])
    const failed = await sync().then(() => "", (e: Error) => e.message)
    expect(failed).toMatch(/order_notes: /)
    h.sim.setFaults([])
    clock.advance(60_000)
    const before = h.sim.requests.length
    await sync()
    const read = h.sim.requests.slice(before).filter((r) => new URL(r.url, "http://x").pathname.endsWith(`/orders/${order.id}/notes`))
    expect(read.length).toBe(1)
    expect(await heldNotes()).toBe(storeNotes())
  })
})

describe("a children pass over the recent parents (SHOPSYNC_CHILDREN_QUIET_DAYS)", () => {
  const DAY = 86_400_000
  // Orders over 150 days, the last completed about three weeks before the clock: the store lists every one.
  const clock = manualClock(Date.parse("2026-08-20T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 29, orders: 240, start: "2026-03-01", days: 150 } })
  })
  afterAll(() => h.close())

  const notesRead = async () => {
    const before = notesRequests(h)
    await h.sync({ streams: ["orders", "order_notes"], childrenFullPassHours: 24, childrenQuietDays: 30 })
    return notesRequests(h) - before
  }
  /** The orders the store modified in the 30 days before its clock, by its own data. */
  const recent = () => h.sim.state.orders.filter((o) => o.modified >= Math.floor(clock.now() / 1000) - 30 * 86_400)
  const heldNotes = async () =>
    (await h.rows<{ note: string }>("SELECT doc->>'note' AS note FROM store.order_notes WHERE store_id = $1 AND deleted_at IS NULL", [STORE_ID])).map((r) => r.note)

  it("reads every order's notes on the first pass and again 30 days after it began; the passes between read the recent orders'", async () => {
    const orders = h.sim.state.orders.length
    expect(h.sim.state.orders.filter((o) => o.modified * 1000 > clock.now())).toEqual([])
    expect(await notesRead()).toBe(orders)

    clock.advance(DAY + 60_000)
    const fresh = recent()
    expect(fresh.length).toBeGreaterThan(0)
    expect(fresh.length).toBeLessThan(orders / 2)
    expect(await notesRead()).toBe(fresh.length)

    // Notes do not touch their order: one on an order untouched for 40 days waits for the pass over every order.
    const old = h.sim.state.orders.find((o) => o.modified < Math.floor(clock.now() / 1000) - 40 * 86_400)!
    h.sim.state.notes.add(old.id, "on an old order")
    h.sim.state.notes.add(fresh.reduce((a, b) => (b.modified > a.modified ? b : a)).id, "on a recent order")
    clock.advance(DAY + 60_000)
    expect(await notesRead()).toBe(recent().length)
    expect(await heldNotes()).toContain("on a recent order")
    expect(await heldNotes()).not.toContain("on an old order")

    clock.advance(28 * DAY)
    expect(await notesRead()).toBe(orders)
    expect(await heldNotes()).toContain("on an old order")
  })
})
