import { Effect, LogLevel } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, type StoreState } from "../../src/simulator/store/index.js"
import { WindowPages } from "../../src/sync/reconcile/listing.js"
import { Progress } from "../../src/sync/context.js"
import { runVerify } from "../../src/sync/reconcile/verify.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { forgetOrder, ms } from "../support/scenarios.js"

// A reconciliation compares one window of ids at a time. With a window of one page (100 rows, consecutive pages sharing
// one), the orders' listing of about 450 rows ends its windows on its 199th, 298th and 397th rows: the drift made here
// sits on those edges and beside them, where a window that lost or counted twice a row would show it.
describe("verify a window of ids at a time: drift on the windows' edges", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  let state: StoreState
  /** What the pass showed of its progress: each window's rows with the expected total, then the end. */
  let shown: Array<string> = []
  const progress = Progress.of({
    page: (stream, rows, total) => Effect.sync(() => void shown.push(`${stream} +${rows} of ${total}`)),
    streamDone: () => Effect.void,
    done: (stream) => Effect.sync(() => void shown.push(`${stream} done`)),
    routine: LogLevel.Debug
  })
  const verify = async (repair: boolean) => {
    clock.advance(2_000)
    shown = []
    const report = await h.run(runVerify({ resources: ["orders"], repair, waitForLock: false }).pipe(
      Effect.provideService(WindowPages, 1), Effect.provideService(Progress, progress)))
    return report!.resources[0]!
  }
  const drift = (r: { missing: ReadonlyArray<number>; stale: ReadonlyArray<number>; gone: ReadonlyArray<number> }) => ({ missing: r.missing, stale: r.stale, gone: r.gone })
  /** The ids the store lists with status=any (all but the trash), in id order. */
  const listed = () => state.orders.filter((o) => o.status !== "trash").map((o) => o.id).sort((a, b) => a - b)

  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 41, orders: 450, start: "2026-04-01", days: 60 } })
    state = h.sim.state
    // Trash across the windows: the trash listing, read whole, joins each window's rows.
    const ids = listed()
    for (const i of [5, 150, 250, 420]) state.trashOrder(ids[i]!)
    clock.advance(2_000)
    await h.sync()
  })
  afterAll(() => h.close())

  it("a clean warehouse has no drift, each order listed once, at the cost of the listing pages alone", async () => {
    const before = await h.requests()
    const found = await verify(false)
    expect(drift(found)).toEqual({ missing: [], stale: [], gone: [] })
    expect(found.listed).toBe(state.orders.length)
    // Windows of 199 rows (the first two pages), then 99, 99 and the rest; the trash joins the windows it falls in.
    const live = listed()
    const trashIn = (after: number, through: number) => state.orders.filter((o) => o.status === "trash" && o.id > after && o.id <= through).length
    const edges = [-Infinity, live[198]!, live[297]!, live[396]!, Infinity]
    const windows = edges.slice(1).map((through, i) => (i === 3 ? live.length - 397 : i === 0 ? 199 : 99) + trashIn(edges[i]!, through))
    expect(shown).toEqual([...windows.map((n) => `orders +${n} of ${state.orders.length}`), "orders done"])
    // 446 rows in 5 pages (100, then 99 new a page), 4 trashed in one; the store's clock: one more.
    expect([found.requests, await h.requests() - before]).toEqual([6, 7])
  })

  it("rows missing, stale and gone on the edges are found and repaired, and the daily sums are the store's again", async () => {
    const ids = listed()
    const trashed = state.orders.find((o) => o.status === "trash" && o.id > ids[199]! && o.id < ids[297]!)!
    const [lastOfFirst, firstOfSecond, lastOfSecond, lastOfThird] = [ids[198]!, ids[199]!, ids[297]!, ids[396]!]
    await forgetOrder(h, lastOfFirst)
    await forgetOrder(h, firstOfSecond)
    // Stale on an edge (an older version), and a trashed order the warehouse holds out of the trash.
    await h.rows(`UPDATE store.orders SET date_modified = date_modified - interval '3 days', doc = jsonb_set(doc, '{customer_note}', '"older"')
                  WHERE store_id = $1 AND id = $2`, [STORE_ID, lastOfSecond])
    await h.rows(`UPDATE store.orders SET status = 'completed', doc = jsonb_set(doc, '{status}', '"completed"') WHERE store_id = $1 AND id = $2`, [STORE_ID, trashed.id])
    state.forceDeleteOrder(lastOfThird)
    const expected = { missing: [lastOfFirst, firstOfSecond], stale: [trashed.id, lastOfSecond].sort((a, b) => a - b), gone: [lastOfThird] }
    expect(drift(await verify(false))).toEqual(expected)
    const repaired = await verify(true)
    expect([drift(repaired), repaired.repaired]).toEqual([expected, 5])
    expect(drift(await verify(false))).toEqual({ missing: [], stale: [], gone: [] })
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})
