// Rows that tie on the sort key come back in no particular order, shuffled afresh by each request, as a real
// WooCommerce store on MariaDB gives them (the ids of one second came as 398, 399, 400, 396, 401). Only the key's
// order is promised; orderby=id is the one total order.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, generate, manualClock, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { at, call } from "./support.ts"

interface Row {
  id: number
  status: string
  date_modified_gmt: string
}

const NOW = at("2025-03-01T00:00:00Z")
const AFTER = "2025-02-28T22:00:00"
const listing = (page: number, orderby = "modified") =>
  `/orders?orderby=${orderby}&order=asc&modified_after=${AFTER}&dates_are_gmt=true&per_page=100&page=${page}`

/** 30 orders touched in one second, then 250 in a later one: the 250 straddle pages 1, 2 and 3 of 100. */
const startTied = async (): Promise<{ sim: StoreSimulator; tied: number[] }> => {
  const clock = manualClock(NOW - 3_600_000)
  const sim = await startStoreSimulator({ clock, data: generate({ seed: 12, orders: 1_000, bursts: 0 }) })
  const live = sim.state.orders.filter((o) => o.status !== "trash").map((o) => o.id)
  sim.state.bulkTouchOrders(live.slice(0, 30))
  clock.set(NOW)
  const tied = live.slice(100, 350)
  sim.state.bulkTouchOrders(tied)
  return { sim, tied }
}

const ids = (rows: Row[]) => rows.map((r) => r.id)
const ascending = (xs: number[]) => xs.every((x, i) => i === 0 || xs[i - 1]! < x)

describe("store simulator: rows that tie on the sort key", () => {
  let sim: StoreSimulator
  let tied: number[]
  beforeAll(async () => ({ sim, tied } = await startTied()))
  afterAll(() => sim.close())

  it("come back out of id order, differently from one request to the next", async () => {
    const first = ids((await call<Row[]>(sim, listing(2))).body)
    const again = ids((await call<Row[]>(sim, listing(2))).body)
    expect(first.every((id) => tied.includes(id))).toBe(true)
    expect(ascending(first)).toBe(false)
    expect(again).not.toEqual(first)
  })

  it("so that walking the pages of one listing can miss rows of a group that straddles them", async () => {
    const walked = new Set<number>()
    for (let page = 1; page <= 3; page++) for (const id of ids((await call<Row[]>(sim, listing(page))).body)) walked.add(id)
    expect(walked.size).toBeLessThan(280)
  })

  it("keep each row within the filters and each page's keys those of the sorted listing", async () => {
    const after = at(`${AFTER}Z`) / 1000
    const keys = sim.state.orders
      .filter((o) => o.status !== "trash" && o.modified > after)
      .map((o) => o.modified)
      .sort((a, b) => a - b)
    expect(keys).toHaveLength(280)
    for (let page = 1; page <= 3; page++) {
      const res = await call<Row[]>(sim, listing(page))
      expect(res.headers.get("x-wp-total")).toBe("280")
      const got = res.body.map((r) => at(`${r.date_modified_gmt}Z`) / 1000)
      expect(got).toEqual(keys.slice((page - 1) * 100, page * 100))
      expect(res.body.every((r) => r.status !== "trash")).toBe(true)
    }
    const newest = await call<Row[]>(sim, listing(1).replace("order=asc", "order=desc"))
    expect(newest.body.map((r) => at(`${r.date_modified_gmt}Z`) / 1000)).toEqual(keys.slice(-100).reverse())
  })

  it("never with orderby=id, which stays strictly ascending", async () => {
    const all: number[] = []
    for (let page = 1; page <= 3; page++) all.push(...ids((await call<Row[]>(sim, listing(page, "id"))).body))
    expect(all).toHaveLength(280)
    expect(ascending(all)).toBe(true)
  })

  it("come in the same order for the same seed and the same requests", async () => {
    const answers = async () => {
      const { sim: other } = await startTied()
      try {
        const pages: number[][] = []
        for (const page of [1, 2, 2, 3]) pages.push(ids((await call<Row[]>(other, listing(page))).body))
        return pages
      } finally {
        await other.close()
      }
    }
    const [a, b] = [await answers(), await answers()]
    expect(a).toEqual(b)
    expect(a[1]).not.toEqual(a[2])
  })
})
