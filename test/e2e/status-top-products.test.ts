// The status page's top products in a real browser (Debian's chromium through playwright-core, JavaScript off): per
// currency, the 10 products and variations with the most net sales over the chart's days, ranked here from the
// simulator's own orders and refunds (never from the warehouse), following the range the URL sets; a product's name,
// whatever it holds, prints as text.
import { existsSync } from "node:fs"
import { Effect } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { statusPageRoute, type WebhookSummary } from "../../src/server/status-page.js"
import { call } from "../simulator/store/support.js"
import { money } from "../support/api.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { countedSales, type ProductDay, productSales } from "../support/product-sales.js"
import { type ServedRoutes, serveRoutes } from "../support/routes.js"

const CHROMIUM = "/usr/bin/chromium"
const inCi = !["", "0", "false"].includes(process.env["CI"] ?? "")
const runs = existsSync(CHROMIUM) || inCi
if (!runs) console.warn(`status top products browser test SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium); in CI it always runs`)

const WEBHOOKS: WebhookSummary = { received: 0, applied: 0, failed: 0, pending: 0, bytes: 0, lastReceivedAt: null, rejected: [] }
const INJECTED = `<script>document.title="owned"</script><img src=x onerror="document.title='owned'"> & "Co"`

interface Shown {
  readonly currency: string | null
  readonly rows: ReadonlyArray<ReadonlyArray<string>>
}

/** Each currency's table as drawn: product and variation ids, then the cells' text (money without its thousands commas). */
const shownTables = async (page: Page): Promise<Array<Shown>> =>
  page.locator("table.top-products").evaluateAll((tables) =>
    tables.map((t) => ({
      currency: t.getAttribute("data-currency"),
      rows: [...t.querySelectorAll("tbody tr")].map((tr) => [
        tr.getAttribute("data-product") ?? "",
        tr.getAttribute("data-variation") ?? "",
        ...[...tr.querySelectorAll("td")].map((td, i) => (i >= 3 ? (td.textContent ?? "").replace(/,/g, "") : td.textContent ?? ""))
      ])
    })))

/** The top 10 of each currency from `first` to `last` by net sales (ties by product, then variation id), as shownTables reads them. */
const expectedTables = (days: Iterable<ProductDay>, first: string, last: string): Array<Shown> => {
  const totals = new Map<string, { currency: string; productId: number; variationId: number; name: string; quantity: number; gross: number; refunded: number }>()
  for (const d of days) {
    if (d.day < first || d.day > last) continue
    const key = `${d.currency} ${d.productId} ${d.variationId}`
    const t = totals.get(key) ?? { currency: d.currency, productId: d.productId, variationId: d.variationId, name: d.name, quantity: 0, gross: 0, refunded: 0 }
    totals.set(key, { ...t, quantity: t.quantity + d.quantity, gross: t.gross + d.gross, refunded: t.refunded + d.refunded })
  }
  const all = [...totals.values()]
  return [...new Set(all.map((t) => t.currency))].sort().map((currency) => ({
    currency,
    rows: all.filter((t) => t.currency === currency)
      .sort((a, b) => (b.gross - b.refunded) - (a.gross - a.refunded) || a.productId - b.productId || a.variationId - b.variationId)
      .slice(0, 10)
      .map((t, i) => [String(t.productId), String(t.variationId), String(i + 1), t.name, String(t.quantity), money(t.gross), money(t.refunded), money(t.gross - t.refunded)])
  }))
}

describe.runIf(runs)("the status page's top products in Chromium", () => {
  let h: Harness
  let served: ServedRoutes
  let browser: Browser
  let page: Page
  let sold: Map<string, ProductDay>
  let renamed: number
  beforeAll(async () => {
    // The demo's data: 45 days from 2024-01-01, refunds up to 40 days later, in more than one currency.
    h = await makeHarness({ timezone: "America/New_York", data: { seed: 7, orders: 400, days: 45 } })
    // The best seller of all is renamed to markup before the sync: its name must print as text.
    const before = await countedSales(h.sim.url)
    renamed = Number(expectedTables(productSales(before.orders, before.refunds).values(), "1970-01-01", "2999-12-31")[0]!.rows[0]![0])
    const answer = await call(h.sim, `/products/${renamed}`, { method: "PUT", json: { name: INJECTED } })
    expect(answer.status).toBe(200)
    // A run reads what the store dated before its clock's current second.
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await h.sync()
    const { orders, refunds } = await countedSales(h.sim.url)
    sold = productSales(orders, refunds)
    served = await serveRoutes(statusPageRoute(Effect.succeed(WEBHOOKS)), h.dbUrl, STORE_ID)
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
    })
    page = await (await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } })).newPage()
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
    await h?.close()
  })

  it("lists each currency's 10 best sellers over the chart's days, with the simulator's units and money", async () => {
    expect((await page.goto(`${served.url}/`))?.status()).toBe(200)
    const first = (await page.locator("#sales").getAttribute("data-first"))!
    const last = (await page.locator("#sales").getAttribute("data-last"))!
    const expected = expectedTables(sold.values(), first, last)
    expect(expected.length).toBeGreaterThanOrEqual(2)
    expect(expected[0]!.rows).toHaveLength(10)
    // Variations are named by their options, and refunds are taken off.
    expect(expected.flatMap((t) => t.rows).some((r) => r[1] !== "0" && r[3]!.includes(" - "))).toBe(true)
    expect(expected.flatMap((t) => t.rows).some((r) => r[6] !== "0.00")).toBe(true)
    expect(await shownTables(page)).toEqual(expected)
    expect(await page.locator("#top-products h2").innerText()).toBe(`Top products, ${first} to ${last}`)
  })

  it("follows the range the URL sets", async () => {
    const all = await shownTables(page)
    expect((await page.goto(`${served.url}/?from=2024-02-01&to=2024-02-07`))?.status()).toBe(200)
    const week = expectedTables(sold.values(), "2024-02-01", "2024-02-07")
    expect(week).not.toEqual(all)
    expect(await shownTables(page)).toEqual(week)
    // Only refunds fall in late March: products with no unit sold, ranked by what they lost; before 2024 nothing at all.
    expect((await page.goto(`${served.url}/?from=2024-03-10&to=2024-03-31`))?.status()).toBe(200)
    const refundsOnly = expectedTables(sold.values(), "2024-03-10", "2024-03-31")
    expect(refundsOnly.flatMap((t) => t.rows).length).toBeGreaterThan(0)
    expect(refundsOnly.flatMap((t) => t.rows).every((r) => r[4] === "0" && r[7]!.startsWith("-"))).toBe(true)
    expect(await shownTables(page)).toEqual(refundsOnly)
    expect((await page.goto(`${served.url}/?from=2023-01-01&to=2023-01-31`))?.status()).toBe(200)
    expect(await shownTables(page)).toEqual([])
    expect(await page.locator("#top-products .empty").innerText()).toBe("No product sold or refunded from 2023-01-01 to 2023-01-31.")
  })

  it("prints a product's name as text, whatever it holds", async () => {
    expect((await page.goto(`${served.url}/`))?.status()).toBe(200)
    const cells = await page.locator(`table.top-products tr[data-product="${renamed}"] td:nth-child(2)`).allInnerTexts()
    expect(cells.length).toBeGreaterThan(0)
    for (const cell of cells) expect(cell.startsWith(INJECTED)).toBe(true)
    expect(await page.locator("script, img").count()).toBe(0)
    expect(await page.title()).toBe(`shopsync · ${STORE_ID}`)
  })
})
