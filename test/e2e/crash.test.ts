import { Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { startCli } from "../support/cli.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { boundaryOrders, expectOrdersPartlyLoaded } from "../support/scenarios.js"

const clock = manualClock(Date.parse("2026-09-01T12:00:00Z"))
let ordersRequests = 0
let onOrdersRequest: (() => void) | undefined

describe("a sync process killed mid-run", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({
      clock,
      data: { seed: 5, orders: 2500, start: "2026-01-05", days: 120 },
      onRequest: ({ path }) => {
        if (path === "/orders") {
          ordersRequests += 1
          onOrdersRequest?.()
        }
      }
    })
  })
  afterAll(() => h.close())

  it("keeps every page it committed, and the next run resumes from the checkpoint to the exact totals", async () => {
    const cli = startCli(["sync", "--streams", "orders,refunds", "--no-push"], {
      DATABASE_URL: Redacted.value(Redacted.make(h.dbUrl)),
      STORE_API_URL: h.sim.url,
      STORE_CONSUMER_KEY: "ck_demo",
      STORE_CONSUMER_SECRET: "cs_demo",
      STORE_ID,
      STORE_SETTLE_SECONDS: "0"
    })
    // SIGKILL while the store is answering the 10th orders page: no finalizer, no graceful shutdown.
    onOrdersRequest = () => {
      if (ordersRequests === 10) cli.child.kill("SIGKILL")
    }
    const killed = await cli.done
    onOrdersRequest = undefined
    expect(killed.signal).toBe("SIGKILL")

    // Some pages were committed, not all; the cursor counts exactly the rows that were committed with it.
    const loaded = await expectOrdersPartlyLoaded(h)
    const boundary = await boundaryOrders(h)

    const resumed = await h.sync({ streams: ["orders", "refunds"] })
    const orders = resumed!.streams.find((s) => s.stream === "orders")!
    const liveOrders = h.sim.state.orders.filter((o) => o.status !== "trash").length
    // It resumed: only what the killed run had not committed was read again, and the second its cursor stopped before.
    expect(orders.rows).toBeLessThanOrEqual(h.sim.state.orders.length - loaded + boundary)
    expect(await h.netSales()).toEqual(h.expectedNetSales())

    const [totals] = await h.rows<{ orders: number; live: number; lines: number }>(
      `SELECT count(*)::int AS orders, count(*) FILTER (WHERE status <> 'trash')::int AS live,
              (SELECT count(*)::int FROM store.order_line_items WHERE store_id = $1) AS lines
       FROM store.orders WHERE store_id = $1`,
      [STORE_ID]
    )
    expect(totals).toEqual({
      orders: h.sim.state.orders.length,
      live: liveOrders,
      lines: h.sim.state.orders.reduce((n, o) => n + o.line_items.length, 0)
    })
    const runs = await h.rows<{ status: string; error: string | null }>("SELECT status, error FROM sync.runs WHERE store_id = $1 ORDER BY id", [STORE_ID])
    expect(runs.map((r) => r.status)).toEqual(["failed", "succeeded"])
    expect(runs[0]!.error).toContain("interrupted")
  })
})

describe("a sync stopped by SIGTERM (cron's timeout, systemd, Kubernetes)", () => {
  let h: Harness
  let onOrders: (() => void) | undefined
  beforeAll(async () => {
    h = await makeHarness({
      clock: manualClock(Date.parse("2026-09-01T12:00:00Z")),
      data: { seed: 6, orders: 2500, start: "2026-01-05", days: 120 },
      onRequest: ({ path }) => {
        if (path === "/orders") onOrders?.()
      }
    })
  })
  afterAll(() => h.close())

  it("exits 143, not 0, and records its run as interrupted at once; the next run resumes", async () => {
    const cli = startCli(["sync", "--streams", "orders,refunds", "--no-push"], {
      DATABASE_URL: h.dbUrl,
      STORE_API_URL: h.sim.url,
      STORE_CONSUMER_KEY: "ck_demo",
      STORE_CONSUMER_SECRET: "cs_demo",
      STORE_ID,
      STORE_SETTLE_SECONDS: "0"
    })
    let seen = 0
    onOrders = () => {
      if (++seen === 6) cli.child.kill("SIGTERM")
    }
    const stopped = await cli.done
    onOrders = undefined
    expect(stopped.code).toBe(143)
    // Recorded by the stopped process itself, not left 'running' for the next run to find.
    const [run] = await h.rows<{ status: string; error: string | null; finished: boolean }>(
      "SELECT status, error, finished_at IS NOT NULL AS finished FROM sync.runs WHERE store_id = $1 ORDER BY id", [STORE_ID])
    expect(run).toMatchObject({ status: "failed", finished: true })
    expect(run!.error).toContain("interrupted: the process was stopped")

    await h.sync({ streams: ["orders", "refunds"] })
    expect(await h.netSales()).toEqual(h.expectedNetSales())
  })
})
