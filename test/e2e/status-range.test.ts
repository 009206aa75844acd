// The status page's chart covers the data the warehouse has, in a real browser (Debian's chromium through
// playwright-core, JavaScript off): by default the 90 days ending at the last day with sales (the demo's data ends
// in March 2024, long before today), a range the URL sets, hostile queries refused with 400, and data generated up
// to today (`demo --until today`, the real CLI) drawn up to today. Expected figures are the simulator's own.
import { existsSync } from "node:fs"
import { Effect } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { statusPageRoute, type WebhookSummary } from "../../src/server/status-page.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { type ServedRoutes, serveRoutes } from "../support/routes.js"

const CHROMIUM = "/usr/bin/chromium"
const inCi = !["", "0", "false"].includes(process.env["CI"] ?? "")
const runs = existsSync(CHROMIUM) || inCi
if (!runs) console.warn(`status range browser test SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium); in CI it always runs`)

const TZ = "America/New_York"
const WEBHOOKS: WebhookSummary = { received: 0, applied: 0, failed: 0, pending: 0, bytes: 0, lastReceivedAt: null, rejected: [] }
const DAY_MS = 86_400_000
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10)

interface Row {
  readonly day: string
  readonly currency: string
  readonly net_sales: string
}

/** Each currency's bars as drawn: day and net amount. */
const drawnBars = async (page: Page) =>
  page.locator("figure.chart").evaluateAll((figures) =>
    figures.map((f) => ({
      currency: f.getAttribute("data-currency"),
      bars: [...f.querySelectorAll("rect.bar")].map((r) => ({ day: r.getAttribute("data-day"), net: r.getAttribute("data-net") }))
    })))

/** The bars the reference rows give between `first` and `last`, per currency, as drawnBars reads them. */
const expectedBars = (rows: ReadonlyArray<Row>, first: string, last: string) => {
  const inside = rows.filter((r) => r.day >= first && r.day <= last)
  return [...new Set(inside.map((r) => r.currency))].sort().map((currency) => ({
    currency,
    bars: inside.filter((r) => r.currency === currency).map((r) => ({ day: r.day, net: r.net_sales }))
  }))
}

describe.runIf(runs)("the status page's chart range in Chromium", () => {
  let browser: Browser
  let page: Page
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
    })
    page = await (await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } })).newPage()
  })
  afterAll(() => browser?.close())

  describe("on the demo's data, which ends in March 2024", () => {
    let h: Harness
    let served: ServedRoutes
    let reference: ReadonlyArray<Row>
    let lastDay: string
    beforeAll(async () => {
      // The demo's generator options: 45 days from 2024-01-01, refunds up to 40 days later.
      h = await makeHarness({ timezone: TZ, data: { seed: 7, orders: 400, days: 45 } })
      await h.sync()
      reference = h.expectedNetSales().map((r) => ({ day: String(r.day), currency: String(r.currency), net_sales: String(r.net_sales) }))
      lastDay = reference.map((r) => r.day).sort().at(-1)!
      served = await serveRoutes(statusPageRoute(Effect.succeed(WEBHOOKS)), h.dbUrl, STORE_ID)
    })
    afterAll(async () => {
      await served?.close()
      await h?.close()
    })

    it("charts the 90 days ending at the last day with sales, not today", async () => {
      expect(await h.netSales()).toEqual(h.expectedNetSales())
      expect(lastDay < "2024-04-01").toBe(true)
      expect((await page.goto(`${served.url}/`))?.status()).toBe(200)
      const first = addDays(lastDay, -89)
      expect(await page.locator("#sales").getAttribute("data-first")).toBe(first)
      expect(await page.locator("#sales").getAttribute("data-last")).toBe(lastDay)
      const drawn = await drawnBars(page)
      expect(drawn).toEqual(expectedBars(reference, first, lastDay))
      expect(drawn.flatMap((c) => c.bars).length).toBeGreaterThan(40)
      expect(await page.locator("#sales h2").innerText()).toBe(`Daily net sales, ${first} to ${lastDay}`)
    })

    it("charts the range the URL sets, and links to the ranges before and after it", async () => {
      expect((await page.goto(`${served.url}/?from=2024-01-15&to=2024-02-15`))?.status()).toBe(200)
      expect(await drawnBars(page)).toEqual(expectedBars(reference, "2024-01-15", "2024-02-15"))
      expect(await page.locator("svg.sales-chart").first().getAttribute("aria-label")).toContain("from 2024-01-15 to 2024-02-15")
      await page.locator("nav.range a", { hasText: "days before" }).click()
      expect(new URL(page.url()).search).toBe("?from=2023-12-14&to=2024-01-14")
      expect(await drawnBars(page)).toEqual(expectedBars(reference, "2023-12-14", "2024-01-14"))
      // One bound: 90 days from it, or to it.
      await page.goto(`${served.url}/?from=2024-02-01`)
      expect(await page.locator("#sales").getAttribute("data-last")).toBe("2024-04-30")
      expect(await drawnBars(page)).toEqual(expectedBars(reference, "2024-02-01", "2024-04-30"))
      await page.goto(`${served.url}/?to=2024-01-31`)
      expect(await page.locator("#sales").getAttribute("data-first")).toBe("2023-11-03")
      await page.goto(`${served.url}/?from=2023-01-01&to=2025-12-31`)
      expect(await drawnBars(page)).toEqual(expectedBars(reference, "2023-01-01", "2025-12-31"))
      expect(await page.locator(".x-axis text").first().textContent()).toBe("1 Jan 2023")
    })

    it("refuses a query it cannot draw with 400 and the problem, printing nothing of it as markup, touching nothing", async () => {
      const injected = `<script>document.title="owned"</script><img src=x onerror="document.title='owned'">`
      const refused: ReadonlyArray<readonly [string, RegExp]> = [
        [`from=${encodeURIComponent(injected)}`, /from is not a day between 1970 and 2999/],
        [`from=${encodeURIComponent("2024-01-01' OR '1'='1")}&to=2024-02-01`, /from is not a day/],
        [`to=${encodeURIComponent("2024-01-01'::date); DROP TABLE store.orders; --")}`, /to is not a day/],
        ["from=2024-01-01%00", /from is not a day/],
        ["from=2024-02-30", /from is not a day/],
        ["to=99999-01-01", /to is not a day/],
        ["from=1969-12-31", /from is not a day between 1970 and 2999/],
        [`from=${"9".repeat(5000)}`, /from is not a day/],
        ["from=2024-01-01&from=2024-02-01", /from is given 2 times; give it once/],
        ["from=2024-03-31&to=2024-01-01", /from \(2024-03-31\) is after to \(2024-01-01\): swap them/],
        ["from=1970-01-01&to=2999-12-31", /the range spans \d+ days, more than 1096 \(three years\): narrow it/]
      ]
      for (const [query, problem] of refused) {
        const response = await fetch(`${served.url}/?${query}`)
        const text = await response.text()
        expect({ query, status: response.status }).toEqual({ query, status: 400 })
        expect(text, query).toMatch(problem)
        expect(text, query).not.toContain("<script>")
      }
      expect((await page.goto(`${served.url}/?from=${encodeURIComponent(injected)}&to=${encodeURIComponent(injected)}`))?.status()).toBe(400)
      expect(await page.title()).toBe("shopsync · bad chart range")
      expect(await page.locator("script, img").count()).toBe(0)
      expect(await page.locator(".problem").innerText()).toContain("?from=YYYY-MM-DD&to=YYYY-MM-DD")
      expect(await h.netSales()).toEqual(h.expectedNetSales())
      // Parameters the page does not read change nothing.
      expect((await fetch(`${served.url}/?days=${encodeURIComponent(injected)}`)).status).toBe(200)
    })
  })

  it("draws `demo --until today`'s data up to today, with the figures the demo checked against the simulator", async () => {
    const db = await freshDatabase()
    let served: ServedRoutes | undefined
    try {
      const demo = await runCli(["demo", "--until", "today", "--orders", "300"], { DATABASE_URL: db.url })
      expect(demo.stdout).toContain("matches the simulator's own computation")
      expect(demo.code).toBe(0)
      const rows = await sqlRows<Row>(db.url,
        "SELECT day::text AS day, currency, net_sales::text AS net_sales FROM analytics.daily_net_sales WHERE store_id = 'demo' ORDER BY currency, day")
      const lastDay = rows.map((r) => r.day).sort().at(-1)!
      const today = new Intl.DateTimeFormat("en-CA", { timeZone: TZ }).format(new Date())
      // Orders arrive all day long; just after midnight in New York today may not have one yet.
      expect([today, addDays(today, -1)]).toContain(lastDay)
      expect(rows.map((r) => r.day).sort()[0]).toBe(addDays(today, -44))
      served = await serveRoutes(statusPageRoute(Effect.succeed(WEBHOOKS)), db.url, "demo")
      expect((await page.goto(`${served.url}/`))?.status()).toBe(200)
      expect(await page.locator("#sales").getAttribute("data-last")).toBe(lastDay)
      expect(await drawnBars(page)).toEqual(expectedBars(rows, addDays(lastDay, -89), lastDay))
    } finally {
      await served?.close()
      await db.drop()
    }
  })
})
