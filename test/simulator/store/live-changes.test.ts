import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { at, call } from "./support.ts"

describe("store simulator: state changing while a client pages", () => {
  const clock = manualClock(at("2025-06-01T00:00:00Z"))
  let sim: StoreSimulator
  let mutate: ((path: string, query: URLSearchParams) => void) | undefined
  beforeAll(async () => {
    sim = await startStoreSimulator({
      clock,
      data: { seed: 8, orders: 120, bursts: 0 },
      onRequest: ({ path, query }) => mutate?.(path, query),
    })
  })
  afterAll(() => sim.close())

  it("sees a new order inserted between pages shift rows: the same order is read twice (offset paging)", async () => {
    mutate = (path, query) => {
      if (path === "/orders" && query.get("page") === "2") {
        clock.advance(1000)
        sim.state.createOrder({ status: "processing" })
      }
    }
    const page1 = (await call<Array<{ id: number }>>(sim, "/orders?per_page=20&page=1&orderby=date")).body.map((o) => o.id)
    const page2 = (await call<Array<{ id: number }>>(sim, "/orders?per_page=20&page=2&orderby=date")).body.map((o) => o.id)
    mutate = undefined
    expect(page2[0]).toBe(page1[19])
  })

  it("sees an order modified between pages move to the end of an orderby=modified walk (so it is skipped or seen again)", async () => {
    const firstPage = (await call<Array<{ id: number }>>(sim, "/orders?per_page=10&page=1&orderby=modified&order=asc")).body.map((o) => o.id)
    mutate = (path, query) => {
      if (path === "/orders" && query.get("page") === "2") {
        clock.advance(1000)
        sim.state.updateOrder(firstPage[0]!, { customer_note: "changed" })
      }
    }
    const page2 = (await call<Array<{ id: number }>>(sim, "/orders?per_page=10&page=2&orderby=modified&order=asc")).body.map((o) => o.id)
    mutate = undefined
    // Everything moved up by one: the 11th row of before is now the 10th, on page 1, and never read.
    const now = (await call<Array<{ id: number }>>(sim, "/orders?per_page=11&page=1&orderby=modified&order=asc")).body.map((o) => o.id)
    expect(page2).not.toContain(now[9])
    expect(now).not.toContain(firstPage[0])
  })

  it("runs the hook before the answer is computed, with the path below the API root", async () => {
    const seen: string[] = []
    mutate = (path, query) => seen.push(`${path}?${query.toString()}`)
    await call(sim, "/customers?per_page=3")
    mutate = undefined
    expect(seen).toEqual(["/customers?per_page=3"])
  })
})
