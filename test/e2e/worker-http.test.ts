// `shopsync worker` serving HTTP: two workers, three registered stores on their own simulators. Each worker takes
// any store's signed deliveries (the simulators' own webhooks, and deliveries posted by hand to the other worker),
// checked against that store's registered secret; the store's entity applies them and the warehouse follows the
// simulator's state. Also: 401 without a registered secret (until the store is added again with one), a wrong
// signature, an unknown store (answered as a wrong signature, without a registry read per id), a replayed body stored once, a delivery whose message was lost, /healthz, /metrics per store, the pages on the admin listener
// (one worker's on loopback, the other's on 0.0.0.0 behind a token), none of them on the webhook listener.
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { dailyNetSales, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli, startCli, stopAll } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { freePort } from "../support/ports.js"
import { deliver, signed } from "../support/serve.js"
import { waitFor } from "../support/wait.js"

const ADMIN_TOKEN = randomBytes(32).toString("hex")

const STORES = [
  { storeId: "w1", seed: 71, timezone: "Europe/Berlin", hookSecret: "whsec_w1" },
  { storeId: "w2", seed: 72, timezone: "Asia/Tokyo", hookSecret: "whsec_w2" },
  { storeId: "w3", seed: 73, timezone: "America/Chicago", hookSecret: "whsec_w3" }
]

describe("shopsync worker serves every registered store's webhooks, health, metrics and pages", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>
  const sims = new Map<string, StoreSimulator>()
  const workers: Array<{ base: string; admin: string; headers: Record<string, string>; runner: string; run: ReturnType<typeof startCli> }> = []
  let passed = false
  let tokenDir: string | undefined
  let tokenFile = ""

  const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => sqlRows<T>(db.url, text, params)
  const auth = (storeId: string) => ({ authorization: `Basic ${Buffer.from(`ck_${storeId}:cs_${storeId}`).toString("base64")}` })
  const addStore = (storeId: string, withSecret: boolean) =>
    runCli(["stores", "add", storeId, "--url", sims.get(storeId)!.url, "--key", `ck_${storeId}`, "--secret-env", "SHOP_SECRET", "--every", "1h",
      ...(withSecret ? ["--webhook-secret-env", "HOOK_SECRET"] : [])],
    { ...env, SHOP_SECRET: `cs_${storeId}`, HOOK_SECRET: STORES.find((s) => s.storeId === storeId)!.hookSecret })
  /** A worker whose admin listener is on loopback, or on every address with the token in a file. */
  const startWorker = async (admin: "loopback" | "open") => {
    const [runnerPort, httpPort, adminPort] = [await freePort(), await freePort(), await freePort()]
    const adminEnv = admin === "open" ? { SHOPSYNC_ADMIN_HOST: "0.0.0.0", SHOPSYNC_ADMIN_TOKEN_FILE: tokenFile } : {}
    const run = startCli(["worker"], {
      ...env, ...adminEnv, SHOPSYNC_RUNNER_HOST: "127.0.0.1", SHOPSYNC_RUNNER_PORT: String(runnerPort), SHOPSYNC_HTTP_PORT: String(httpPort),
      SHOPSYNC_ADMIN_PORT: String(adminPort), SHOPSYNC_RUNNER_CONCURRENCY: "2"
    })
    const headers: Record<string, string> = admin === "open" ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {}
    workers.push({ base: `http://127.0.0.1:${httpPort}`, admin: `http://127.0.0.1:${adminPort}`, headers, runner: `127.0.0.1:${runnerPort}`, run })
  }
  const netSales = (storeId: string) =>
    q(`SELECT day::text AS day, currency, orders_count, to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
              to_char(refunds, 'FM999999999990.00') AS refunds, to_char(net_sales, 'FM999999999990.00') AS net_sales
       FROM analytics.daily_net_sales WHERE store_id = $1 ORDER BY day, currency`, [storeId])
  /** Until the store's daily_net_sales equal the simulator's own computation (within `ms`). */
  const exact = (storeId: string, ms = 10_000) => waitFor(`${storeId}'s daily_net_sales equal to its simulator's`, async () =>
    JSON.stringify(await netSales(storeId)) === JSON.stringify(dailyNetSales(sims.get(storeId)!.state)) ? true : undefined, ms, 200)
  const orderStatus = async (storeId: string, id: number) =>
    (await q<{ status: string }>("SELECT status FROM store.orders WHERE store_id = $1 AND id = $2", [storeId, id]))[0]?.status
  const line = (storeId: string) => [{ product_id: sims.get(storeId)!.state.products.find((p) => p.type === "simple")!.id, quantity: 1 }]
  /** An order's current document, delivered by hand (signed with `secret`) as the store would under `topic`. */
  const postOrder = async (base: string, storeId: string, id: number, topic: string, deliveryId: string, secret: string) => {
    const body = JSON.stringify(await (await fetch(`${sims.get(storeId)!.url}/orders/${id}`, { headers: auth(storeId) })).json())
    return deliver(`${base}/webhooks/store/${storeId}`, body, {
      "x-wc-webhook-id": "1", "x-wc-webhook-topic": topic, "x-wc-webhook-delivery-id": deliveryId, "x-wc-webhook-signature": signed(body, secret)
    })
  }
  const inboxState = async (storeId: string, deliveryId: string) =>
    (await q<{ state: string }>("SELECT state FROM sync.webhook_inbox WHERE store_id = $1 AND delivery_id = $2", [storeId, deliveryId]))[0]?.state

  beforeAll(async () => {
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, SHOPSYNC_MASTER_KEY: randomBytes(32).toString("base64") }
    tokenDir = mkdtempSync(path.join(tmpdir(), "worker-admin-"))
    tokenFile = path.join(tokenDir, "admin.token")
    writeFileSync(tokenFile, `${ADMIN_TOKEN}\n`, { mode: 0o600 })
    for (const { storeId, seed, timezone } of STORES) {
      sims.set(storeId, await startStoreSimulator({
        consumerKey: `ck_${storeId}`, consumerSecret: `cs_${storeId}`, timezone, data: { seed, orders: 60, customers: 20, products: 8, start: "2026-03-01", days: 20 }
      }))
    }
    // w3 first without a webhook secret: its deliveries are refused until it is added again with one.
    const added = await Promise.all([addStore("w1", true), addStore("w2", true), addStore("w3", false)])
    for (const run of added) expect(run.code, run.stderr).toBe(0)
    await startWorker("loopback")
    await startWorker("open")
    await waitFor("both workers healthy", async () =>
      (await Promise.all(workers.map((w) => fetch(`${w.base}/healthz`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.status, () => 0)))).every((s) => s === 200) ? true : undefined, 60_000)
    await waitFor("every store's first sync", async () =>
      (await q("SELECT DISTINCT store_id FROM sync.runs WHERE command = 'sync' AND status = 'succeeded'")).length === STORES.length ? true : undefined, 60_000)
    // The simulators deliver w1's changes to the first worker and w2's to the second.
    for (const [storeId, w] of [["w1", workers[0]!], ["w2", workers[1]!]] as const) {
      for (const topic of ["order.created", "order.updated"]) {
        sims.get(storeId)!.state.webhooks.create({ topic, delivery_url: `${w.base}/webhooks/store/${storeId}`, secret: STORES.find((s) => s.storeId === storeId)!.hookSecret })
      }
    }
  }, 120_000)
  afterAll(async () => {
    await stopAll(workers.map((w) => w.run), 15_000)
    if (!passed) for (const w of workers) console.log(w.runner, w.run.output().stderr.slice(-4000))
    for (const sim of sims.values()) await sim.close()
    await db?.drop()
    if (tokenDir) rmSync(tokenDir, { recursive: true })
  })

  it("applies the simulators' own deliveries, each store's on the worker it was sent to", async () => {
    for (const storeId of ["w1", "w2"]) {
      const sim = sims.get(storeId)!
      const o = sim.state.createOrder({ status: "processing", currency: "EUR", line_items: line(storeId) })
      sim.state.updateOrder(o.id, { status: "completed" })
      await sim.webhooksIdle()
      expect(sim.state.webhooks.deliveries.filter((d) => d.response.code === 200).length).toBeGreaterThanOrEqual(2)
      await waitFor(`${storeId}'s order ${o.id} completed`, async () => (await orderStatus(storeId, o.id)) === "completed" ? true : undefined, 10_000, 200)
      await exact(storeId)
    }
  })

  it("refuses a wrong signature (401), an unknown store (401, as a wrong signature), a store without a secret (401) until it has one", async () => {
    const sim = sims.get("w1")!
    const o = sim.state.orders[0]!
    expect((await postOrder(workers[1]!.base, "w1", o.id, "order.updated", "x-1", "not-the-secret")).status).toBe(401)
    const unknown = await deliver(`${workers[0]!.base}/webhooks/store/nobody`, "{}", { "x-wc-webhook-signature": "AAAA" })
    expect(unknown.status).toBe(401)
    expect(await unknown.json()).toEqual({ error: "missing or wrong signature" })
    const noSecret = await postOrder(workers[0]!.base, "w3", sims.get("w3")!.state.orders[0]!.id, "order.updated", "x-3", "whsec_w3")
    expect(noSecret.status).toBe(401)
    expect(await noSecret.text()).toContain("no webhook secret registered")
    expect(await q("SELECT 1 FROM sync.webhook_inbox WHERE delivery_id IN ('x-1', 'x-3')")).toEqual([])

    // Added again with its secret: the running workers take its deliveries at once (no restart).
    expect((await runCli(["stores", "remove", "w3"], env)).code).toBe(0)
    const again = await addStore("w3", true)
    expect(again.code, again.stderr).toBe(0)
    expect((await postOrder(workers[0]!.base, "w3", sims.get("w3")!.state.orders[0]!.id, "order.updated", "x-4", "whsec_w3")).status).toBe(200)
  })

  it("answers an unknown store exactly as a known one with a wrong signature, and floods of unknown ids do not reach the registry", async () => {
    const body = JSON.stringify({ id: 1 })
    const post = (storeId: string) => deliver(`${workers[0]!.base}/webhooks/store/${storeId}`, body, {
      "x-wc-webhook-id": "1", "x-wc-webhook-topic": "order.updated", "x-wc-webhook-delivery-id": "probe", "x-wc-webhook-signature": signed(body, "guess")
    })
    const seen = async (res: Response) => ({ status: res.status, body: await res.text(), headers: [...res.headers].filter(([name]) => name !== "date") })
    expect(await seen(await post(`nobody-${randomBytes(6).toString("hex")}`))).toEqual(await seen(await post("w1")))

    // Registry reads counted by PostgreSQL: scans of sync.store_registry, whose statistics arrive within a second or
    // two. Other readers (the schedule's sweep every 5 s, syncs) scan it too: a window as long with no flood is the baseline.
    const scans = async () => {
      const [row] = await q<{ n: string }>("SELECT (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text AS n FROM pg_stat_user_tables WHERE relid = 'sync.store_registry'::regclass")
      return Number(row!.n)
    }
    const window = async (during: () => Promise<void>) => {
      const before = await scans()
      const started = Date.now()
      await during()
      await new Promise((resolve) => setTimeout(resolve, 5_000 - (Date.now() - started)))
      return await scans() - before
    }
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    // At most one read of the whole registry per 10 s, where one per id would be 100. A sync or a delivery's apply
    // landing in one window and not the other moves the difference by a few (CI once saw 7 against 1): the best of
    // three pairs of windows is compared, which a read per id would still fail by far.
    const pairs: Array<{ flooded: number; idle: number }> = []
    for (let attempt = 0; attempt < 3 && !pairs.some((p) => p.flooded - p.idle <= 2); attempt++) {
      const idle = await window(async () => {})
      const flooded = await window(async () => {
        for (let i = 0; i < 100; i++) expect((await post(`nobody-${randomBytes(6).toString("hex")}`)).status).toBe(401)
      })
      pairs.push({ flooded, idle })
    }
    const best = Math.min(...pairs.map((p) => p.flooded - p.idle))
    expect(best, `scans flooded/idle: ${pairs.map((p) => `${p.flooded}/${p.idle}`).join(", ")}`).toBeLessThanOrEqual(2)
  })

  it("stores a delivery re-sent with new delivery ids once (the same body for the same store)", async () => {
    const o = sims.get("w2")!.state.orders[1]!
    const answers = new Map<string, number>()
    for (let i = 0; i < 200; i++) {
      const res = await postOrder(workers[i % 2]!.base, "w2", o.id, "order.updated", `replay-${i}`, "whsec_w2")
      const key = `${res.status} ${await res.text()}`
      answers.set(key, (answers.get(key) ?? 0) + 1)
    }
    expect(Object.fromEntries(answers)).toEqual({ '200 {"stored":"new"}': 1, '200 {"stored":"duplicate"}': 199 })
    expect(await q("SELECT 1 FROM sync.webhook_inbox WHERE store_id = 'w2' AND delivery_id LIKE 'replay-%'")).toHaveLength(1)
  })

  it("any worker applies any store's delivery posted to it", async () => {
    const sim = sims.get("w3")!
    for (const [i, w] of workers.entries()) {
      const o = sim.state.createOrder({ status: "on-hold", currency: "USD", line_items: line("w3") })
      const res = await postOrder(w.base, "w3", o.id, "order.created", `w3-${i}`, "whsec_w3")
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ stored: "new" })
      await waitFor(`w3's order ${o.id} through ${w.runner}`, async () => (await orderStatus("w3", o.id)) === "on-hold" ? true : undefined, 10_000, 200)
      expect(await inboxState("w3", `w3-${i}`)).toBe("applied")
    }
    await exact("w3")
    // w1's deliveries go to the first worker; one posted to the second is applied too.
    const o = sims.get("w1")!.state.orders.find((x) => x.status === "completed")!
    expect((await postOrder(workers[1]!.base, "w1", o.id, "order.updated", "w1-cross", "whsec_w1")).status).toBe(200)
    await waitFor("w1's hand-posted delivery settled", async () => (await inboxState("w1", "w1-cross")) !== "pending" ? true : undefined, 10_000, 200)
  })

  it("a stored delivery whose ApplyDelivery was lost is applied before the store's next sync", async () => {
    const sim = sims.get("w3")!
    const o = sim.state.createOrder({ status: "processing", currency: "USD", line_items: line("w3") })
    const body = JSON.stringify(await (await fetch(`${sim.url}/orders/${o.id}`, { headers: auth("w3") })).json())
    // As if a worker died between storing the delivery and sending its message.
    await q("INSERT INTO sync.webhook_inbox (store_id, webhook_id, delivery_id, topic, body) VALUES ('w3', '1', 'lost-1', 'order.created', $1)", [body])
    const sync = await runCli(["stores", "sync", "w3"], env)
    expect(sync.code, sync.stderr).toBe(0)
    expect(await inboxState("w3", "lost-1")).toBe("applied")
  })

  it("serves /healthz, /metrics per store, the page across stores and each store's page on the admin listener", async () => {
    for (const w of workers) {
      const health = await fetch(`${w.admin}/healthz`, { headers: w.headers })
      expect(health.status).toBe(200)
      expect(await health.json()).toEqual({ status: "ok", runner: w.runner })
    }
    // Each worker reports the stores it holds: together, every store once; together, all 300 shards.
    const scraped = await waitFor("the workers' shards adding up to 300", async () => {
      const texts = await Promise.all(workers.map((w) => fetch(`${w.admin}/metrics`, { headers: w.headers }).then((r) => r.text())))
      const shards = texts.map((t, i) => Number(new RegExp(`^shopsync_runner_shards\\{runner="${workers[i]!.runner}"\\} (\\d+)$`, "m").exec(t)?.[1]))
      return shards.every((n) => n > 0) && shards.reduce((a, b) => a + b, 0) === 300 ? texts : undefined
    }, 20_000)
    for (const { storeId } of STORES) {
      const reporting = scraped.filter((t) => new RegExp(`^shopsync_webhook_inbox_pending\\{store="${storeId}"\\} 0$`, "m").test(t))
      expect(reporting, storeId).toHaveLength(1)
      expect(scraped.join("\n")).toMatch(new RegExp(`^shopsync_stream_last_success_timestamp_seconds\\{store="${storeId}",stream="orders"\\} \\d+`, "m"))
    }
    expect(scraped[0]).toMatch(/^shopsync_webhook_deliveries_total\{outcome="accepted",store="w1"\} [1-9]\d*$/m)
    expect(scraped[1]).toMatch(/^shopsync_webhook_deliveries_total\{outcome="accepted",store="w2"\} [1-9]\d*$/m)
    expect(scraped[1]).toMatch(/^shopsync_webhook_deliveries_total\{outcome="rejected",store="w1"\} [1-9]\d*$/m)

    const page = await fetch(`${workers[1]!.admin}/`, { headers: workers[1]!.headers })
    expect(page.status).toBe(200)
    const text = await page.text()
    for (const { storeId } of STORES) expect(text).toContain(`<tr data-store="${storeId}"><td><a href="/stores/${storeId}">${storeId}</a>`)
    expect(text).toMatch(/<tr data-store="w1">.*<span class="badge ok">current<\/span>/)
    const one = await fetch(`${workers[0]!.admin}/stores/w2`)
    expect(one.status).toBe(200)
    const storePage = await one.text()
    expect(storePage).toContain("<title>shopsync · w2</title>")
    expect(storePage).toContain("Daily net sales")
    expect((await fetch(`${workers[0]!.admin}/stores/nobody`)).status).toBe(404)
    passed = true
  })

  it("the webhook listener serves no page, no metrics, and /healthz without its reasons", async () => {
    passed = false
    for (const w of workers) {
      for (const route of ["/", "/metrics", "/stores/w2"]) expect({ route, status: (await fetch(`${w.base}${route}`)).status }).toEqual({ route, status: 404 })
      const health = await fetch(`${w.base}/healthz`)
      expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { status: "ok" } })
    }
    passed = true
  })

  it("an admin listener off loopback answers only the token", async () => {
    passed = false
    const open = workers[1]!
    for (const route of ["/", "/metrics", "/stores/w2", "/healthz"]) {
      const none = await fetch(`${open.admin}${route}`)
      expect({ route, status: none.status, challenge: none.headers.get("www-authenticate") }).toEqual({ route, status: 401, challenge: "Bearer realm=\"shopsync admin\"" })
      expect(await none.text()).not.toContain("w1")
      for (const wrong of [ADMIN_TOKEN.replace(/.$/, (c) => (c === "0" ? "1" : "0")), `${ADMIN_TOKEN}0`, ADMIN_TOKEN.slice(1)]) {
        expect({ route, status: (await fetch(`${open.admin}${route}`, { headers: { authorization: `Bearer ${wrong}` } })).status }).toEqual({ route, status: 401 })
      }
      expect({ route, status: (await fetch(`${open.admin}${route}`, { headers: { authorization: `Basic ${ADMIN_TOKEN}` } })).status }).toEqual({ route, status: 401 })
      expect({ route, status: (await fetch(`${open.admin}${route}`, { headers: open.headers })).status }).toEqual({ route, status: 200 })
    }
    expect(open.run.output().stderr).toMatch(/admin listener on http:\/\/0\.0\.0\.0:\d+ .*needs Authorization: Bearer/)
    passed = true
  })
})
