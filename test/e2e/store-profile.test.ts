// The warehouse records what a reader of `day` and of money needs and the order rows do not say: the store's
// currency, and the UTC offsets of its timezone (the API names no timezone; its dates carry the offsets).
import { afterEach, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { type Harness, makeHarness } from "../support/harness.js"
import { ms } from "../support/scenarios.js"

interface StoreRow {
  currency: string | null
  currency_source: string
  utc_offsets: string[]
  offsets_orders: number
}

/** "+HH:MM" of a timezone at an instant, as Intl (the platform's tz database) gives it. */
const offsetAt = (timezone: string, epochSeconds: number): string => {
  const name = new Intl.DateTimeFormat("en-US", { timeZone: timezone, timeZoneName: "longOffset" })
    .formatToParts(new Date(epochSeconds * 1000)).find((p) => p.type === "timeZoneName")!.value
  return name === "GMT" ? "+00:00" : name.replace("GMT", "")
}

/** The offsets of `timezone` at the creation of every order of the simulator (all of them fall within a year here). */
const expectedOffsets = (h: Harness, timezone: string): string[] =>
  [...new Set(h.sim.state.orders.map((o) => offsetAt(timezone, o.created)))]
    .sort((a, b) => Number(a.replace(":", "")) - Number(b.replace(":", "")))

const storeRow = async (h: Harness) =>
  (await h.rows<StoreRow>("SELECT currency, currency_source, utc_offsets, offsets_orders FROM store.stores WHERE store_id = 'test'"))[0]

describe("the store's currency and timezone, recorded", () => {
  let h: Harness | undefined
  afterEach(() => h?.close())

  it("records the currency the store's settings name and both offsets of a timezone with daylight saving time", async () => {
    const clock = manualClock(ms("2026-09-15T12:00:00Z"))
    // One attempt per request: the outage below fails at once.
    h = await makeHarness({ clock, timezone: "Europe/Paris", data: { seed: 7, orders: 150, start: "2026-01-10", days: 200 } }, { maxAttempts: 1 })
    h.sim.state.settings.set("general", "woocommerce_currency", "GBP")
    const summary = await h.sync({ streams: ["orders", "store_profile"] })
    expect(summary!.streams.find((s) => s.stream === "store_profile")).toMatchObject({ rows: 1 })

    const expected = expectedOffsets(h, "Europe/Paris")
    expect(expected).toEqual(["+01:00", "+02:00"])
    expect(await storeRow(h)).toEqual({
      currency: "GBP",
      currency_source: "GET /data/currencies/current",
      utc_offsets: expected,
      offsets_orders: h.sim.state.orders.length
    })
    expect(await h.rows("SELECT store_id, currency, utc_offsets FROM analytics.stores"))
      .toEqual([{ store_id: "test", currency: "GBP", utc_offsets: expected }])

    // Unchanged: nothing written; the store's currency changed: recorded.
    clock.advance(60_000)
    expect((await h.sync({ streams: ["store_profile"] }))!.streams).toMatchObject([{ stream: "store_profile", rows: 0 }])
    h.sim.state.settings.set("general", "woocommerce_currency", "EUR")
    clock.advance(60_000)
    expect((await h.sync({ streams: ["store_profile"] }))!.streams).toMatchObject([{ stream: "store_profile", rows: 1 }])
    expect((await storeRow(h))?.currency).toBe("EUR")

    // A store failing for a while (not refusing the route) fails the stream and leaves the recorded currency alone.
    h.sim.setFaults([{ kind: "500", pathPrefix: "/data/currencies/current" }])
    clock.advance(60_000)
    const failed = await h.sync({ streams: ["store_profile"] }).then(() => "", (e: Error) => e.message)
    expect(failed).toMatch(/store_profile: .*500/)
    expect(await storeRow(h)).toMatchObject({ currency: "EUR", currency_source: "GET /data/currencies/current" })
  })

  it("a store that does not serve the current currency: its latest order's currency is recorded, with the offsets, and the stream is reported unavailable", async () => {
    const clock = manualClock(ms("2026-07-01T12:00:00Z"))
    h = await makeHarness({
      clock,
      timezone: "Asia/Kolkata",
      data: { seed: 8, orders: 80, start: "2026-05-01", days: 40 },
      routes: { disabled: ["/data/currencies/current"] }
    })
    const summary = await h.sync({ streams: ["orders", "store_profile"], named: false })
    expect(summary!.streams.filter((s) => s.error !== undefined)).toEqual([])
    expect(summary!.streams.find((s) => s.stream === "store_profile")?.unavailable).toMatch(/\/data\/currencies\/current.* answered 404 rest_no_route/)

    const latest = [...h.sim.state.orders].sort((a, b) => b.modified - a.modified || b.id - a.id)[0]!
    expect(await storeRow(h)).toEqual({
      currency: latest.currency,
      currency_source: "latest order",
      utc_offsets: ["+05:30"],
      offsets_orders: h.sim.state.orders.length
    })
    expect(expectedOffsets(h, "Asia/Kolkata")).toEqual(["+05:30"])
  })
})
