// The status page in a real browser (Debian's chromium through playwright-core, JavaScript off): a chart per
// currency whose bars and totals are analytics.daily_net_sales and the simulator's own figures, the streams'
// states, nothing loaded from anywhere else, every printed value escaped. The screenshot lands in test/artifacts/.
import { existsSync, mkdirSync } from "node:fs"
import { Effect, Redacted } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { statusPageRoute, type WebhookSummary } from "../../src/server/status-page.js"
import { STREAMS } from "../../src/sync/catalogue.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { makeQuarantineRepo } from "../../src/warehouse/quarantine.js"
import * as SqlClient from "@effect/sql/SqlClient"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { type ServedRoutes, serveRoutes } from "../support/routes.js"

const CHROMIUM = "/usr/bin/chromium"
const inCi = !["", "0", "false"].includes(process.env["CI"] ?? "")
const runs = existsSync(CHROMIUM) || inCi
if (!runs) console.warn(`status page browser test SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium); in CI it always runs`)

const DAY_MS = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const INJECTED = `<script>document.title="owned"</script><img src=x onerror="document.title='owned'">`
const WEBHOOKS: WebhookSummary = { received: 12, applied: 9, failed: 2, pending: 1, bytes: 4096, lastReceivedAt: INJECTED, rejected: [] }

/** Cents of a decimal text, so sums stay exact. */
const cents = (amount: string) => {
  const [whole, fraction = ""] = amount.replace("-", "").split(".")
  return (amount.startsWith("-") ? -1 : 1) * (Number(whole) * 100 + Number(fraction.padEnd(2, "0").slice(0, 2)))
}
const fromCents = (n: number) => `${n < 0 ? "-" : ""}${Math.floor(Math.abs(n) / 100)}.${String(Math.abs(n) % 100).padStart(2, "0")}`

describe.runIf(runs)("the status page in Chromium", () => {
  let h: Harness
  let served: ServedRoutes
  let browser: Browser
  let page: Page
  const requested: string[] = []
  // Sales over 32 days inside the 90 the page shows (refunds come up to 40 days after their order, still inside).
  const start = isoDay(Date.now() - 88 * DAY_MS)

  beforeAll(async () => {
    h = await makeHarness({ data: { seed: 21, orders: 500, start, days: 32 }, routes: { disabled: ["/webhooks"] } })
    await h.sync({ streams: STREAMS, named: false })
    await Effect.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        makeQuarantineRepo(sql, STORE_ID).hold("orders", [{ id: `9<b>9`, kind: "invalid", reason: INJECTED, doc: "{}", path: null }])).pipe(
        Effect.provide(pgLayer(Redacted.make(h.dbUrl)))
      )
    )
    served = await serveRoutes(statusPageRoute(Effect.succeed(WEBHOOKS)), h.dbUrl, STORE_ID)
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
    })
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } })
    page = await context.newPage()
    page.on("request", (request) => requested.push(request.url()))
    const response = await page.goto(`${served.url}/`)
    expect(response?.status()).toBe(200)
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
    await h?.close()
  })

  it("draws one chart per currency, a bar per day with sales, with the warehouse's and the simulator's figures", async () => {
    expect(await h.netSales()).toEqual(h.expectedNetSales())
    const first = isoDay(Date.now() - 89 * DAY_MS)
    const rows = await h.rows<{ day: string; currency: string; net_sales: string }>(
      `SELECT day::text AS day, currency, net_sales::text AS net_sales FROM analytics.daily_net_sales
       WHERE store_id = $1 AND day >= current_date - 89 ORDER BY currency, day`, [STORE_ID])
    const currencies = [...new Set(rows.map((r) => r.currency))]
    expect(currencies.length).toBeGreaterThanOrEqual(2)
    expect(await page.locator("svg.sales-chart").count()).toBe(currencies.length)
    const reference = h.expectedNetSales().filter((r) => String(r.day) >= first)
    for (const currency of currencies) {
      const figure = page.locator(`figure.chart[data-currency="${currency}"]`)
      const bars = figure.locator("svg.sales-chart rect.bar")
      const drawn = await bars.evaluateAll((els) => els.map((e) => ({ day: e.getAttribute("data-day"), net: e.getAttribute("data-net") })))
      const days = rows.filter((r) => r.currency === currency)
      expect(days.length).toBeGreaterThanOrEqual(25)
      expect(drawn).toEqual(days.map((r) => ({ day: r.day, net: r.net_sales })))
      const simTotal = fromCents(reference.filter((r) => r.currency === currency).reduce((sum, r) => sum + cents(String(r.net_sales)), 0))
      expect(await figure.locator(".total").getAttribute("data-total")).toBe(simTotal)
      expect((await figure.locator(".total").innerText()).replace(/,/g, "")).toBe(`${simTotal} ${currency}`)
      expect(await figure.locator(".y-axis text").count()).toBeGreaterThanOrEqual(3)
      expect(await figure.locator(".x-axis text").count()).toBeGreaterThanOrEqual(5)
      expect(await figure.locator("svg").getAttribute("aria-label")).toContain(currency)
    }
    mkdirSync("test/artifacts", { recursive: true })
    await page.screenshot({ path: "test/artifacts/status-page.png", fullPage: true })
    expect(existsSync("test/artifacts/status-page.png")).toBe(true)
  })

  it("shows each stream's state and last run, the unavailable ones with the store's answer", async () => {
    const status = await h.status()
    const shown = await page.locator("#streams table.streams tbody tr").evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")))
    const byStream = new Map(shown.map((cells) => [cells[0], cells]))
    for (const s of status.filter((s) => (STREAMS as ReadonlyArray<string>).includes(s.stream))) {
      const expected = s.last_error.startsWith("unavailable") ? "unavailable" : s.last_error !== "" ? "failing" : "OK"
      expect({ stream: s.stream, cells: byStream.get(s.stream)?.slice(1, 3) }).toEqual({ stream: s.stream, cells: [expected, s.last_success ?? "never"] })
    }
    expect(byStream.get("webhooks")?.[1]).toBe("unavailable")
    expect(await page.locator("#streams table.unavailable").innerText()).toMatch(/webhooks\s.*404/)
    // Every stream but webhooks (the simulator's route is disabled) is OK.
    expect(await page.locator(".cards").innerText()).toContain(`${STREAMS.length - 1} of ${STREAMS.length} OK`)
    expect(await page.locator("#webhooks td").allInnerTexts()).toEqual(["12", "9", "2", "1", INJECTED])
  })

  it("prints what it reads as text: no element comes from the data, and nothing is requested but the page", async () => {
    expect(await page.locator("script").count()).toBe(0)
    expect(await page.locator("img").count()).toBe(0)
    expect(await page.title()).toBe(`shopsync · ${STORE_ID}`)
    const quarantined = await page.locator("#quarantine tbody tr td").allInnerTexts()
    expect(quarantined.slice(0, 4)).toEqual(["orders", "9<b>9", "invalid", INJECTED])
    expect(requested).toEqual([`${served.url}/`])
  })
})
