// `shopsync serve`'s own health, with a scheduled sync every second: a paused subscription is reported, a body
// over 1 MiB sent without Content-Length is refused (413) with nothing stored, and /healthz turns 503 when no
// scheduled sync has finished for three intervals (the store failing), then 200 again once one does.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { eventually, type Serve, startServe } from "../support/serve.js"

const STORE = "serve-h"

describe("shopsync serve reports its own health", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let serve: Serve
  const health = async () => {
    // The admin listener's /healthz: the webhook listener's gives no reason.
    const r = await fetch(`${serve.admin}/healthz`)
    return { status: r.status, body: (await r.json()) as { status: string; reason?: string } }
  }

  beforeAll(async () => {
    sim = await startStoreSimulator({ data: { seed: 33, orders: 60, customers: 15, products: 8, start: "2026-03-01", days: 10 } })
    db = await freshDatabase()
    const env = { DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: STORE, STORE_WEBHOOK_SECRET: "whsec_health", SHOPSYNC_SYNC_EVERY: "1s" }
    serve = await startServe(env)
    await serve.ready
    expect((await runCli(["store-hooks", "ensure", "--url", serve.hookUrl], env)).code).toBe(0)
  })
  afterAll(async () => {
    serve?.child.kill("SIGKILL")
    await sim?.close()
    await db?.drop()
  })

  it("a subscription paused in the store is reported", async () => {
    const hook = [...sim.state.webhooks.byId.values()].find((w) => w.topic === "customer.updated")!
    sim.state.webhooks.update(hook, { status: "paused" })
    await eventually(async () => new RegExp(`customer\\.updated \\(webhook ${hook.id}\\) paused`).test(serve.stderr()), 15_000, "the paused subscription reported")
  })

  it("a body over 1 MiB without Content-Length is refused with 413, nothing stored", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(120)
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 4 MiB, sent without a length: the server keeps none of it past 1 MiB, and drops the rest to answer 413.
        if (sent++ < 64) controller.enqueue(chunk)
        else controller.close()
      }
    })
    const r = await fetch(serve.hookUrl, { method: "POST", body, duplex: "half", headers: { "x-shop-webhook-signature": "AAAA", "x-shop-webhook-topic": "order.updated" } } as RequestInit)
    expect(r.status).toBe(413)
    expect(await sqlRows(db.url, "SELECT seq FROM sync.webhook_inbox")).toEqual([])
  })

  it("/healthz: 503 once no scheduled sync finished for three intervals, 200 again after one does", async () => {
    expect((await health()).status).toBe(200)
    sim.setFaults([{ kind: "500" }])
    const down = await eventually(async () => {
      const h = await health()
      return h.status === 503 ? h.body : undefined
    }, 20_000, "healthz 503")
    expect(down.reason).toContain("three intervals")
    sim.setFaults([])
    await eventually(async () => (await health()).status === 200, 120_000, "healthz 200 again")
  })
})
