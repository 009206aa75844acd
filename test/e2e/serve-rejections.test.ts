// Rejected webhook deliveries are visible (issue 22, item 7), through a real `shopsync serve`: badly signed and
// header-less deliveries are logged once a minute per cause (not once per delivery), naming the fix and never the
// secret, a signature or the body, and the status page counts them per cause as /metrics does. Deliveries stored
// that cannot be applied (an unknown topic) are logged by the same rule, and counted as failed. The window is
// SHOPSYNC_WEBHOOK_LOG_EVERY, 10 s here instead of the default minute (test/unit/webhook-rejections.test.ts has the
// minute's lines, under the TestClock).
import { existsSync } from "node:fs"
import { chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { deliver, eventually, serveStore, signed } from "../support/serve.js"

const CHROMIUM = "/usr/bin/chromium"
const inCi = !["", "0", "false"].includes(process.env["CI"] ?? "")
const hasBrowser = existsSync(CHROMIUM) || inCi

const SECRET = "whsec_rejections_test_secret"
const WRONG = "whsec_someone_elses_secret"
const STORE = "rej-t"
const BODY = JSON.stringify({ id: 4242, status: "completed", note: "BODY-MARKER-7f3a" })
/** The log window this serve runs with (SHOPSYNC_WEBHOOK_LOG_EVERY): long enough that the lines checked right after the first ones come before it ends. */
const WINDOW = { SHOPSYNC_WEBHOOK_LOG_EVERY: "10s" }

/** The log lines (JSON, stderr not being a terminal) about rejected deliveries of `cause`. */
const rejectionLines = (stderr: string, cause: string) =>
  stderr.split("\n").filter((l) => l.includes("rejected in the last 10 seconds")).map((l) => JSON.parse(l) as { message: string; annotations: Record<string, unknown> })
    .filter((l) => l.annotations["cause"] === cause)

/** A sample of the Prometheus text, by name and labels. */
const sample = (text: string, name: string, labels: string) => Number(new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, "m").exec(text)?.[1])

describe("rejected webhook deliveries under shopsync serve", () => {
  let served: Awaited<ReturnType<typeof serveStore>>
  const headers = (signature: string | undefined) => ({
    "x-wc-webhook-topic": "order.updated", "x-wc-webhook-id": "7", "x-wc-webhook-delivery-id": String(Math.random()),
    ...(signature === undefined ? {} : { "x-wc-webhook-signature": signature })
  })

  beforeAll(async () => {
    served = await serveStore({ seed: 4, orders: 40, start: "2026-06-01", days: 10 }, STORE, SECRET, WINDOW)
  })
  afterAll(() => served?.close())

  it("logs five badly signed deliveries once, then the rest of the window in one line, naming the fix and nothing secret", async () => {
    const { serve } = served
    const statuses: Array<number> = []
    for (let i = 0; i < 4; i++) statuses.push((await deliver(serve.hookUrl, BODY, headers(signed(BODY, WRONG)))).status)
    statuses.push((await deliver(serve.hookUrl, BODY, headers(undefined))).status)
    // Signed right, but no topic: another cause.
    statuses.push((await deliver(serve.hookUrl, BODY, { "x-wc-webhook-signature": signed(BODY, SECRET) })).status)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 400])
    // Signed right, stored, but of a topic shopsync does not apply: failed in the inbox (three bodies: a repeated one is a duplicate).
    for (let i = 0; i < 3; i++) {
      const coupon = JSON.stringify({ id: 5 + i, code: "x" })
      const delivered = await deliver(serve.hookUrl, coupon, { ...headers(signed(coupon, SECRET)), "x-wc-webhook-topic": "coupon.updated" })
      expect(delivered.status).toBe(200)
    }

    const first = await eventually(async () => rejectionLines(serve.stderr(), "signature")[0], 5_000, "the first rejection's line")
    expect(first.message).toMatch(/^webhooks: 1 delivery rejected in the last 10 seconds: bad or missing signature \(401\); .*STORE_WEBHOOK_SECRET/)
    expect(rejectionLines(serve.stderr(), "headers")).toHaveLength(1)
    const unapplicable = await eventually(async () => rejectionLines(serve.stderr(), "unapplicable")[0], 5_000, "the first unapplicable delivery's line")
    expect(unapplicable.message).toMatch(/^webhooks: 1 delivery rejected in the last 10 seconds: stored, but not applicable .*\(last: delivery \d+ of store rej-t \(coupon\.updated\): topic coupon\.updated is not one shopsync applies/)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    expect(rejectionLines(serve.stderr(), "signature")).toHaveLength(1)
    expect(rejectionLines(serve.stderr(), "unapplicable")).toHaveLength(1)
    expect(serve.stderr()).not.toMatch(/webhooks: delivery \d+ \(coupon\.updated\) failed/)

    // The other four are said in one line once the window has passed (the sweep runs every 2 s, a fifth of it).
    const summed = await eventually(async () => rejectionLines(serve.stderr(), "signature")[1], 30_000, "the window's summary")
    expect(summed.message).toMatch(/^webhooks: 4 deliveries rejected in the last 10 seconds: bad or missing signature \(401\)/)
    expect(summed.annotations["rejected"]).toBe(4)
    expect(rejectionLines(serve.stderr(), "signature")).toHaveLength(2)
    const summedUnapplicable = await eventually(async () => rejectionLines(serve.stderr(), "unapplicable")[1], 10_000, "the unapplicable ones' summary")
    expect(summedUnapplicable.annotations["rejected"]).toBe(2)
    for (const secret of [SECRET, WRONG, signed(BODY, WRONG), "BODY-MARKER-7f3a"]) expect(serve.stderr()).not.toContain(secret)
  }, 120_000)

  it.runIf(hasBrowser)("shows each cause's count on the status page, equal to /metrics", async () => {
    const { serve } = served
    const metrics = await (await fetch(`${serve.admin}/metrics`)).text()
    expect(sample(metrics, "shopsync_webhook_rejections_total", `cause="signature"`)).toBe(5)
    expect(sample(metrics, "shopsync_webhook_rejections_total", `cause="headers"`)).toBe(1)
    expect(sample(metrics, "shopsync_webhook_rejections_total", `cause="too_large"`)).toBe(0)
    // Rejected: the 6 refused and the 3 that failed; the refusals alone per cause (the failed ones are the inbox's).
    expect(sample(metrics, "shopsync_webhook_deliveries_total", `outcome="rejected"`)).toBe(9)
    expect(metrics).not.toContain(`cause="unapplicable"`)

    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] })
    try {
      const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage()
      expect((await page.goto(`${serve.admin}/`))?.status()).toBe(200)
      const rows = await page.locator("#webhooks table.rejections tbody tr").evaluateAll((trs) =>
        trs.map((tr) => ({ cause: tr.getAttribute("data-cause"), count: Number(tr.querySelector(".count")?.textContent) })))
      expect(rows).toEqual([{ cause: "signature", count: 5 }, { cause: "headers", count: 1 }])
      expect(await page.locator("#webhooks table.rejections").innerText()).toContain("STORE_WEBHOOK_SECRET")
      expect(await page.locator(".cards").innerText()).toContain("0 applied, 3 failed, 6 rejected since start")
    } finally {
      await browser.close()
    }
  })
})
