import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock } from "../../../src/simulator/store/index.ts"
import { at, call, emptyShop, simpleProductId } from "./support.ts"

type Order = { id: number; date_created: string; date_created_gmt: string; date_modified: string; date_modified_gmt: string }

describe("store simulator: dates, local vs GMT filters across DST (America/New_York)", () => {
  const clock = manualClock(at("2024-01-01T00:00:00Z"))
  let sim: StoreSimulator
  const ids: Record<string, number> = {}
  const create = (name: string, iso: string) => {
    clock.set(at(iso))
    ids[name] = sim.state.createOrder({ status: "processing", line_items: [{ product_id: simpleProductId(sim), quantity: 1 }] }).id
  }
  const idsOf = async (query: string) => (await call<Order[]>(sim, `/orders?per_page=100&orderby=id&order=asc&${query}`)).body.map((o) => o.id)

  beforeAll(async () => {
    sim = await emptyShop({ clock, timezone: "America/New_York" })
    // Fall back on 2024-11-03: 01:30 local happens twice, at 05:30Z (EDT) and 06:30Z (EST).
    create("edt", "2024-11-03T05:30:00Z")
    create("est", "2024-11-03T06:30:00Z")
    // Spring forward on 2024-03-10: 01:59:59 EST is followed by 03:00:00 EDT.
    create("beforeJump", "2024-03-10T06:59:59Z")
    create("afterJump", "2024-03-10T07:00:00Z")
    // Two orders a second apart, on both sides of local midnight.
    create("lateEvening", "2024-06-01T03:59:59Z")
    create("pastMidnight", "2024-06-01T04:00:00Z")
  })
  afterAll(() => sim.close())

  it("renders every date as a local / GMT pair of whole seconds without offset", async () => {
    const show = async (name: string) => (await call<Order>(sim, `/orders/${ids[name]}`)).body
    expect(await show("edt")).toMatchObject({ date_created: "2024-11-03T01:30:00", date_created_gmt: "2024-11-03T05:30:00" })
    expect(await show("est")).toMatchObject({ date_created: "2024-11-03T01:30:00", date_created_gmt: "2024-11-03T06:30:00" })
    expect(await show("beforeJump")).toMatchObject({ date_created: "2024-03-10T01:59:59", date_created_gmt: "2024-03-10T06:59:59" })
    expect(await show("afterJump")).toMatchObject({ date_created: "2024-03-10T03:00:00", date_created_gmt: "2024-03-10T07:00:00" })
    expect(await show("lateEvening")).toMatchObject({ date_modified: "2024-05-31T23:59:59", date_modified_gmt: "2024-06-01T03:59:59" })
  })

  it("compares local columns without dates_are_gmt: the repeated 01:30 is one local second", async () => {
    expect(await idsOf("modified_after=2024-11-03T01:29:59")).toEqual([ids["edt"], ids["est"]])
    expect(await idsOf("modified_after=2024-11-03T01:30:00")).toEqual([])
    expect(await idsOf("modified_before=2024-11-03T01:30:01&modified_after=2024-11-01T00:00:00")).toEqual([ids["edt"], ids["est"]])
  })

  it("compares GMT columns with dates_are_gmt=true", async () => {
    expect(await idsOf("modified_after=2024-11-03T06:00:00&dates_are_gmt=true")).toEqual([ids["est"]])
    expect(await idsOf("modified_after=2024-11-03T05:30:00&dates_are_gmt=true")).toEqual([ids["est"]])
    expect(await idsOf("modified_after=2024-11-03T05:29:59&dates_are_gmt=true")).toEqual([ids["edt"], ids["est"]])
  })

  it("is strict at one-second resolution on both bounds", async () => {
    expect(await idsOf("after=2024-03-10T01:59:59")).not.toContain(ids["beforeJump"])
    expect(await idsOf("after=2024-03-10T01:59:58&before=2024-03-10T03:00:00")).toEqual([ids["beforeJump"]])
    expect(await idsOf("after=2024-03-10T06:59:59&before=2024-03-10T07:00:01&dates_are_gmt=true")).toEqual([ids["afterJump"]])
    expect(await idsOf("modified_after=2024-05-31T23:59:59&modified_before=2024-06-02T00:00:00")).toEqual([ids["pastMidnight"]])
    expect(await idsOf("modified_after=2024-06-01T03:59:59.900&modified_before=2024-06-02T00:00:00&dates_are_gmt=true")).toEqual([ids["pastMidnight"]])
  })

  it("converts a value with Z or an offset to site-local time first, even against the GMT columns", async () => {
    // 06:00Z is 01:00 EST: as a local bound it keeps both 01:30 orders.
    expect(await idsOf("modified_after=2024-11-03T06:00:00Z&modified_before=2024-11-04T00:00:00")).toEqual([ids["edt"], ids["est"]])
    // The quirk: with dates_are_gmt=true the local reading 01:00 is compared with 05:30 and 06:30 GMT.
    expect(await idsOf("modified_after=2024-11-03T06:00:00Z&modified_before=2024-11-04T00:00:00&dates_are_gmt=true")).toEqual([ids["edt"], ids["est"]])
    expect(await idsOf("modified_after=2024-11-03T06:00:00&modified_before=2024-11-04T00:00:00&dates_are_gmt=true")).toEqual([ids["est"]])
    // 05:59:59+02:00 is 03:59:59Z, 23:59:59 EDT the evening before: only the order a second later is after it.
    expect(await idsOf("modified_after=2024-06-01T05:59:59%2B02:00&modified_before=2024-06-02T00:00:00")).toEqual([ids["pastMidnight"]])
    expect(await idsOf("modified_after=2024-06-01T06:00:00%2B02:00&modified_before=2024-06-02T00:00:00")).toEqual([])
  })

  it("refuses date-only values", async () => {
    const res = await call(sim, "/orders?modified_after=2024-11-03")
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: "rest_invalid_param", message: "Invalid parameter(s): modified_after" })
  })

  it("filters store-wide refunds and products by created date the same way", async () => {
    clock.set(at("2024-11-03T05:45:00Z")) // 01:45 EDT
    const first = sim.state.createRefund(ids["edt"]!, { amount: "1.00" })
    clock.set(at("2024-11-03T06:15:00Z")) // 01:15 EST
    const second = sim.state.createRefund(ids["est"]!, { amount: "1.00" })
    const refundIds = async (q: string) => (await call<Array<{ id: number }>>(sim, `/refunds?orderby=id&order=asc&${q}`)).body.map((r) => r.id)
    expect(await refundIds("after=2024-11-03T01:20:00&before=2024-11-03T02:00:00")).toEqual([first.id])
    expect(await refundIds("after=2024-11-03T06:00:00&dates_are_gmt=true")).toEqual([second.id])
    const products = await call<unknown[]>(sim, "/products?after=2100-01-01T00:00:00")
    expect(products.body).toEqual([])
  })
})

describe("store simulator: dates in a southern-hemisphere zone (Australia/Sydney)", () => {
  it("shifts the local day with the zone's own DST", async () => {
    const clock = manualClock(at("2024-04-06T15:30:00Z")) // 02:30 AEDT on 7 April, the fall-back night
    const sim = await emptyShop({ clock, timezone: "Australia/Sydney" })
    try {
      const o = sim.state.createOrder({ status: "completed" })
      const shown = (await call<Order>(sim, `/orders/${o.id}`)).body
      expect(shown.date_created).toBe("2024-04-07T02:30:00")
      clock.set(at("2024-04-06T16:30:00Z")) // 02:30 AEST, once more
      const again = sim.state.createOrder({ status: "completed" })
      expect((await call<Order>(sim, `/orders/${again.id}`)).body.date_created).toBe("2024-04-07T02:30:00")
    } finally {
      await sim.close()
    }
  })
})
