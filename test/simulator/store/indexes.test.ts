import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, generate, manualClock, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { SiteTime } from "../../../src/simulator/store/dates.ts"
import { createRng } from "../../../src/simulator/http/prng.ts"
import { runList } from "../../../src/simulator/store/rest/query.ts"
import { IndexFamily } from "../../../src/simulator/store/rest/sorted-index.ts"
import { at, call } from "./support.ts"

describe("store simulator: list queries read O(log n + page) records", () => {
  it("binary-searches the modified index for the sync query instead of scanning", () => {
    type Row = { id: number; created: number; modified: number }
    let keyReads = 0
    const family = new IndexFamily<Row>({ created: (r) => r.created, modified: (r) => (keyReads++, r.modified) })
    const rows: Row[] = []
    for (let id = 1; id <= 300_000; id++) rows.push({ id, created: 1_700_000_000 + id * 60, modified: 1_700_000_000 + id * 60 + (id % 7) * 3600 })
    family.reset(rows)
    const site = new SiteTime("America/New_York")
    for (const local of [false, true]) {
      keyReads = 0
      const after = 1_700_000_000 + 150_000 * 60
      const result = runList({ families: [family], sort: "modified", desc: false, modified: { after }, local, offset: 200, limit: 100, rng: createRng(1) }, site)
      // Brute force: what the answer must be.
      const column = (t: number) => (local ? site.wall(t) : t)
      const expected = rows.filter((r) => column(r.modified) > after).sort((a, b) => a.modified - b.modified || a.id - b.id)
      expect(result.total).toBe(expected.length)
      expect(result.items.map((r) => r.id)).toEqual(expected.slice(200, 300).map((r) => r.id))
      // Two binary searches per bound, two reads per row of the page to find its ties, plus (for local time) the
      // rows of the offset-uncertain hour at each edge.
      expect(keyReads, local ? "local" : "gmt").toBeLessThan(local ? 2_000 : 450)
    }
  })
})

describe("store simulator: a bulk edit over HTTP", () => {
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock: manualClock(at("2025-03-01T00:00:00Z")), data: generate({ seed: 12, orders: 20_000 }) })
  })
  afterAll(() => sim.close())

  it("keeps the counts exact while a bulk edit moves 1,000 orders into one second", async () => {
    const q = "/orders?orderby=modified&order=asc&modified_after=2025-02-28T23:59:59&dates_are_gmt=true&per_page=100"
    expect((await call(sim, q)).headers.get("x-wp-total")).toBe("0")
    const ids = sim.state.orders.filter((o) => o.status !== "trash").slice(5000, 6000).map((o) => o.id)
    sim.state.bulkTouchOrders(ids)
    const res = await call<Array<{ id: number }>>(sim, q)
    expect(res.headers.get("x-wp-total")).toBe("1000")
    // The 1,000 tie on modified: the page is 100 of them, in whatever order the store gives ties.
    const page = res.body.map((o) => o.id)
    expect(new Set(page).size).toBe(100)
    expect(page.every((id) => ids.includes(id))).toBe(true)
  })
})
