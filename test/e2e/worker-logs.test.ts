// What a worker logs as it syncs its stores every few minutes (stderr not a terminal: JSON lines), read from a real
// worker syncing two plain-HTTP simulated stores every 5 s, one quiet and one taking orders all along, each pushing
// its contacts to a marketing simulator: at a thousand stores, whatever it repeats each sync of each store is
// gigabytes a day.
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MarketingSimulator, startMarketingSimulator } from "../../src/simulator/marketing/index.js"
import { startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli, startCli, stopAll } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { freePort } from "../support/ports.js"
import { waitFor } from "../support/wait.js"

interface LogLine {
  readonly message: string
  readonly logLevel: string
  readonly annotations: Record<string, unknown>
}

const STORES = ["quiet", "busy"] as const
/** Syncs of each store to wait for: its first, then incremental ones. */
const SYNCS = 4

describe("a worker's log across scheduled syncs", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  const sims = new Map<string, StoreSimulator>()
  let mk: MarketingSimulator
  let worker: ReturnType<typeof startCli> | undefined
  let lines: LogLine[] = []

  beforeAll(async () => {
    db = await freshDatabase()
    mk = await startMarketingSimulator()
    const env = { DATABASE_URL: db.url, SHOPSYNC_MASTER_KEY: randomBytes(32).toString("base64"), MARKETING_ALLOW_HTTP: "1" }
    for (const [i, storeId] of STORES.entries()) {
      const sim = await startStoreSimulator({ consumerKey: `ck_${storeId}`, consumerSecret: `cs_${storeId}`, data: { seed: 51 + i, orders: 60, start: "2026-01-05", days: 20 } })
      sims.set(storeId, sim)
      const added = await runCli(["stores", "add", storeId, "--url", sim.url, "--key", `ck_${storeId}`, "--secret-env", "SECRET", "--every", "5s",
        "--marketing-url", mk.baseUrl, "--marketing-client-id", "mk_demo", "--marketing-secret-env", "MK"], { ...env, SECRET: `cs_${storeId}`, MK: "mk_secret" })
      expect(added.code, added.stderr).toBe(0)
    }
    worker = startCli(["worker"], {
      ...env, SHOPSYNC_RUNNER_HOST: "127.0.0.1", SHOPSYNC_RUNNER_PORT: String(await freePort()),
      SHOPSYNC_HTTP_PORT: String(await freePort()), SHOPSYNC_ADMIN_PORT: String(await freePort())
    })
    const orders = setInterval(() => sims.get("busy")!.state.createOrder({ status: "processing" }), 2000)
    try {
      await waitFor(`${SYNCS} syncs of each store`, async () => {
        const runs = await sqlRows<{ store_id: string; n: number }>(db.url,
          "SELECT store_id, count(*)::int AS n FROM sync.runs WHERE command = 'sync' AND status = 'succeeded' GROUP BY store_id")
        return STORES.every((id) => (runs.find((r) => r.store_id === id)?.n ?? 0) >= SYNCS) ? true : undefined
      }, 90_000)
    } finally {
      clearInterval(orders)
    }
    lines = worker.output().stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as LogLine)
  }, 120_000)
  afterAll(async () => {
    if (worker) await stopAll([worker], 15_000)
    for (const sim of sims.values()) await sim.close()
    await mk?.close()
    await db?.drop()
  })

  it("warns once per plain-HTTP store, not once per sync", () => {
    for (const storeId of STORES) {
      const warnings = lines.filter((l) => l.annotations["store"] === storeId && l.message.includes("is plain HTTP"))
      expect(warnings.map((l) => l.logLevel), storeId).toEqual(["WARN"])
      expect(warnings[0]!.message).toContain(`store ${storeId}'s URL`)
    }
  })

  it("logs a stream only when it read rows: not due, skipped and empty streams are debug lines", () => {
    const streams = lines.filter((l) => l.annotations["stream"] !== undefined)
    expect(streams.length).toBeGreaterThan(0)
    for (const line of streams) expect(line, JSON.stringify(line)).toMatchObject({ logLevel: "INFO", annotations: { outcome: "done" } })
    expect(streams.every((l) => Number(l.annotations["rows"]) + Number(l.annotations["deleted"]) > 0)).toBe(true)
    // The quiet store's orders were read by its first sync only; the busy store's by every sync that found new ones.
    const orders = (storeId: string) => streams.filter((l) => l.annotations["store"] === storeId && l.annotations["stream"] === "orders").length
    expect(orders("quiet")).toBe(1)
    expect(orders("busy")).toBeGreaterThan(1)
  })

  it("logs the store's pace only when the store held requests back, which the simulators never do", () => {
    expect(lines.filter((l) => l.annotations["event"] === "pace")).toEqual([])
  })

  it("logs an incremental sync as its summary line, and the streams that read rows", () => {
    const summary = (l: LogLine) => /^run \d+ succeeded: /.test(l.message) && l.annotations["command"] === "sync"
    for (const storeId of STORES) {
      const own = lines.filter((l) => l.annotations["store"] === storeId)
      // The first sync ends with its push, which sent the store's contacts, after the run's summary line.
      const first = own.findIndex(summary)
      const firstPush = own.findIndex((l) => l.annotations["command"] === "push")
      expect(first).toBeGreaterThanOrEqual(0)
      expect(firstPush).toBeGreaterThan(first)
      const later = own.slice(firstPush + 1)
      const syncs = later.filter(summary).length
      expect(syncs, storeId).toBeGreaterThanOrEqual(SYNCS - 2)
      // A slot a sync already covered is skipped with a line: a worker behind its schedule shows there. Only the busy
      // store's streams read rows after its first sync, and only its contacts may have changed.
      const read = (l: LogLine) => storeId === "busy" && (l.annotations["stream"] !== undefined || l.annotations["command"] === "push")
      const expected = (l: LogLine) => summary(l) || read(l) || /^store \S+: skipped /.test(l.message)
      expect(later.filter((l) => !expected(l)).map((l) => `${l.logLevel} ${l.message}`), storeId).toEqual([])
      const bytes = later.reduce((n, l) => n + JSON.stringify(l).length + 1, 0)
      console.log(`${storeId}: ${(later.length / syncs).toFixed(1)} lines, about ${Math.round(bytes / syncs)} bytes per incremental sync`)
    }
  })

  it("logs a push that sent, refused or quarantined contacts; one with nothing to send is a debug line", () => {
    const pushes = lines.filter((l) => l.annotations["command"] === "push")
    const figures = (l: LogLine) => ["sent", "failed", "quarantined", "pending"].reduce((n, k) => n + Number(l.annotations[k]), 0)
    expect(pushes.filter((l) => l.annotations["store"] === "quiet").map((l) => l.logLevel)).toEqual(["INFO"])
    for (const line of pushes) expect(figures(line), JSON.stringify(line)).toBeGreaterThan(0)
  })
})
