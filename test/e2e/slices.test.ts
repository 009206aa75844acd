import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { RequestInfo } from "../../src/simulator/store/app.js"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { boundaryOrders, expectOrdersMatchStore, expectOrdersPartlyLoaded, failedSync, ms, streamState } from "../support/scenarios.js"

interface Position {
  readonly at: number | null
  readonly id: number | null
}

/** The stream's pending slices as its state row says: {bound or "open": cursor}, or the plain cursor alone. */
const pendingOf = (state: { at: number | null; id: number | null; details: { slices?: Record<string, Position> } } | null) =>
  state === null
    ? undefined
    : Object.entries(state.details.slices ?? { open: { at: state.at, id: state.id } })
      .map(([key, cursor]) => ({ cursor, bound: key === "open" ? null : Number(key) }))

const isAfter = (o: { modified: number; id: number }, c: Position) =>
  c.at === null || o.modified > c.at || (o.modified === c.at && c.id !== null && o.id > c.id)

/**
 * Orders the committed state counts as loaded (outside every pending slice) that the warehouse does not
 * hold. The state and the orders are read in one statement, so from one snapshot of what is committed.
 */
const claimedButMissing = async (h: Harness) => {
  const [snapshot] = await h.rows<{ state: Parameters<typeof pendingOf>[0]; ids: number[] }>(
    `SELECT (SELECT row_to_json(s) FROM (SELECT extract(epoch FROM cursor_at)::int AS at, cursor_id::int AS id, details
                                         FROM sync.state WHERE store_id = $1 AND stream = 'orders') s) AS state,
            (SELECT coalesce(array_agg(id::int), '{}') FROM store.orders WHERE store_id = $1) AS ids`,
    [STORE_ID]
  )
  const pending = pendingOf(snapshot!.state)
  if (pending === undefined) return []
  const loaded = new Set(snapshot!.ids)
  return h.sim.state.orders
    .filter((o) => o.status !== "trash")
    .filter((o) => !pending.some((p) => isAfter(o, p.cursor) && (p.bound === null || o.modified < p.bound)))
    .filter((o) => !loaded.has(o.id))
    .map((o) => o.id)
}

describe("a long walk split into time slices walked at once", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let hook: ((info: RequestInfo) => Promise<void> | void) | undefined
  beforeAll(async () => {
    // 3,000 orders at 20 a page: 150 pages, cut four ways.
    h = await makeHarness(
      { clock, timezone: "America/New_York", data: { seed: 61, orders: 3000, bursts: 0, start: "2026-01-05", days: 120 }, onRequest: (info) => hook?.(info) },
      { perPage: 20, concurrency: 4 }
    )
  })
  afterAll(() => h.close())

  it("never checkpoints a row that is not loaded; a run that fails mid-way leaves each slice's cursor, and the next resumes them all without skipping", async () => {
    const violations: number[] = []
    let checks = 0
    let ordersRequests = 0
    hook = async ({ path }) => {
      if (path !== "/orders") return
      ordersRequests++
      if (ordersRequests % 4 === 0) {
        checks++
        violations.push(...(await claimedButMissing(h)))
      }
      // Part of the way in, the store starts failing every orders request: the run stops with slices pending.
      if (ordersRequests === 70) h.sim.setFaults([{ kind: "503", pathPrefix: "/orders" }])
    }
    expect(await failedSync(h.sync({ streams: ["orders"] }))).toMatch(/503/)
    expect(checks).toBeGreaterThan(10)
    expect(violations).toEqual([])

    const state = (await streamState(h)).find((s) => s.stream === "orders")!
    const slices = state.details.slices as Record<string, Position> | undefined
    expect(Object.keys(slices ?? {}).length).toBeGreaterThan(1)
    expect(await claimedButMissing(h)).toEqual([])
    // Pages of several slices were committed, not all; the state counts exactly the committed rows.
    const loaded = await expectOrdersPartlyLoaded(h)
    const boundary = await boundaryOrders(h)
    // The watermark is the lowest pending cursor: every row at or before it is loaded.
    const lowest = Object.values(slices!).sort((a, b) => (a.at ?? 0) - (b.at ?? 0) || (a.id ?? Infinity) - (b.id ?? Infinity))[0]!
    expect({ at: state.cursor_at, id: state.cursor_id }).toEqual(lowest)
    // `shopsync status` says so.
    const status = await h.status()
    expect(status.find((s) => s.stream === "orders")?.cursor).toContain(`(${Object.keys(slices!).length} slices pending)`)

    h.sim.setFaults([])
    clock.advance(1_000)
    const resumed = await h.sync({ streams: ["orders"] })
    hook = undefined
    expect(violations).toEqual([])
    const orders = resumed!.streams.find((s) => s.stream === "orders")!
    // Only what the failed run had not committed was read again, and the second each slice's cursor stopped before.
    expect(orders.rows).toBeLessThanOrEqual(h.sim.state.orders.length - loaded + boundary)
    await expectOrdersMatchStore(h)
    const after = (await streamState(h)).find((s) => s.stream === "orders")!
    expect(after.details.slices).toBeUndefined()
    expect(after.cursor_at).not.toBeNull()
  })

  it("a sync with nothing new walks no slices: one request per listing", async () => {
    clock.advance(60_000)
    let walks = 0
    hook = ({ path, query }) => {
      if (path === "/orders" && query.get("orderby") === "modified") walks++
    }
    const summary = await h.sync({ streams: ["orders"] })
    hook = undefined
    expect(summary!.streams[0]!.rows).toBe(0)
    expect(walks).toBe(2)
  })
})

describe("resuming slices under a lower upper bound (the store's clock behind, or a longer settle)", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let failAt: number | undefined
  beforeAll(async () => {
    let ordersRequests = 0
    h = await makeHarness(
      {
        clock,
        timezone: "America/New_York",
        data: { seed: 61, orders: 3000, bursts: 0, start: "2026-01-05", days: 120 },
        onRequest: ({ path }) => {
          if (path === "/orders" && ++ordersRequests === failAt) h.sim.setFaults([{ kind: "503", pathPrefix: "/orders" }])
        }
      },
      { perPage: 20, concurrency: 4 }
    )
  })
  afterAll(() => h.close())

  it("walks a pending slice to its own bound, so the rows between the new upper and that bound are not skipped", async () => {
    failAt = 70
    expect(await failedSync(h.sync({ streams: ["orders"] }))).toMatch(/503/)
    h.sim.setFaults([])
    const state = (await streamState(h)).find((s) => s.stream === "orders")!
    const [bound, cursor] = Object.entries(state.details.slices as Record<string, Position>)
      .filter(([key, c]) => key !== "open" && c.at !== null)
      .map(([key, c]) => [Number(key), c.at!] as const)
      .sort((a, b) => b[0] - a[0])[0]!
    // The next run's store clock says a time inside that slice, with rows of it still to load above it.
    const upper = Math.floor((cursor + bound) / 2)
    expect(h.sim.state.orders.filter((o) => o.modified >= upper && o.modified < bound).length).toBeGreaterThan(0)
    const resumeAt = clock.now()
    clock.set(upper * 1000)
    await h.sync({ streams: ["orders"] })
    clock.set(resumeAt + 60_000)
    await h.sync({ streams: ["orders"] })
    await expectOrdersMatchStore(h)
  })
})
