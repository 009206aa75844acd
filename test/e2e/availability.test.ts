// Real stores serve part of the API: older versions lack routes, plugins remove some, a key's user may not
// read everything. Such a stream is unavailable, not failed: the sales data loads, the run succeeds, the stream
// is skipped until it is due to be checked again, and naming it fails the run.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { STREAMS } from "../../src/sync/catalogue.js"
import { type Harness, makeHarness } from "../support/harness.js"

const ms = (iso: string) => Date.parse(iso)
const DISABLED = ["/webhooks", "/taxes", "/products/reviews"]
const FORBIDDEN = ["/settings", "/reports/top_sellers"]
/** What those routes hold, per stream (`/taxes/classes` is under `/taxes`). */
const UNAVAILABLE = ["product_reviews", "report_top_sellers", "settings", "tax_classes", "tax_rates", "webhooks"]

const routeRequests = (h: Harness, prefixes: ReadonlyArray<string>) =>
  h.sim.requests.filter((r) => prefixes.some((p) => new URL(r.url, "http://x").pathname.includes(p))).length

describe("a store that serves only part of the API", () => {
  const clock = manualClock(ms("2026-07-01T12:00:00Z"))
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ clock, data: { seed: 5, orders: 400, start: "2026-04-01", days: 30 }, routes: { disabled: DISABLED, forbidden: FORBIDDEN } })
  })
  afterAll(() => h.close())

  it("a plain sync succeeds: the sales data is exact, and the streams it cannot read are recorded unavailable with the store's answer", async () => {
    const summary = await h.sync({ streams: STREAMS, named: false })
    expect(summary!.streams.filter((s) => s.error !== undefined)).toEqual([])
    expect(summary!.streams.filter((s) => s.unavailable !== undefined).map((s) => s.stream).sort()).toEqual(UNAVAILABLE)
    expect(summary!.streams.find((s) => s.stream === "webhooks")?.unavailable).toMatch(/\/webhooks.* answered 404 rest_no_route/)
    expect(summary!.streams.find((s) => s.stream === "settings")?.unavailable).toMatch(/\/settings.* answered 401 woocommerce_rest_cannot_view/)
    expect(await h.netSales()).toEqual(h.expectedNetSales())

    const status = new Map((await h.status()).map((s) => [s.stream, s.last_error]))
    for (const stream of UNAVAILABLE) expect({ stream, status: status.get(stream) }).toMatchObject({ stream, status: expect.stringMatching(/^unavailable \(checked /) })
    expect(status.get("orders")).toBe("")
  })

  it("the next sync skips them without a request to their routes, until they are due to be checked again", async () => {
    const before = routeRequests(h, [...DISABLED, ...FORBIDDEN])
    clock.advance(3_600_000)
    const again = await h.sync({ streams: STREAMS, named: false })
    expect(again!.streams.filter((s) => s.unavailable !== undefined).map((s) => s.stream).sort()).toEqual(UNAVAILABLE)
    expect(routeRequests(h, [...DISABLED, ...FORBIDDEN])).toBe(before)

    const rechecked = await h.sync({ streams: STREAMS, named: false, unavailableRecheckHours: 1 })
    expect(rechecked!.streams.filter((s) => s.unavailable !== undefined).map((s) => s.stream).sort()).toEqual(UNAVAILABLE)
    expect(routeRequests(h, [...DISABLED, ...FORBIDDEN])).toBeGreaterThan(before)
  })

  it("a stream the user names that the store does not serve fails the run, naming it and the route", async () => {
    const error = await h.sync({ streams: ["orders", "webhooks"], named: true }).then(() => "", (e: Error) => e.message)
    expect(error).toMatch(/failed in 1 stream\(s\): webhooks: .*\/webhooks/)
  })
})
