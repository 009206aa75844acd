import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { startCli } from "../support/cli.js"
import { freePort } from "../support/ports.js"
import { reachableTempDir } from "../support/data-root.js"

const waitFor = async (condition: () => boolean, what: string) => {
  for (let i = 0; i < 600 && !condition(); i++) await new Promise((r) => setTimeout(r, 50))
  if (!condition()) throw new Error(`timed out waiting for ${what}`)
}

describe("two shopsync processes on one embedded PostgreSQL", () => {
  const clock = manualClock(Date.parse("2026-09-01T00:00:00Z"))
  let fast: StoreSimulator
  let slow: StoreSimulator
  /** Holds the first store's answers until the second process has joined the server. */
  let joined: Promise<void> = Promise.resolve()
  let dataRoot: string
  beforeAll(async () => {
    const data = { seed: 5, orders: 200, start: "2026-07-01", days: 30 }
    fast = await startStoreSimulator({ clock, data, onRequest: () => joined })
    // Every request of the second store takes a second: its sync outlives the first one.
    slow = await startStoreSimulator({ clock, data, faults: [{ kind: "latency", latencyMs: 1000 }] })
    dataRoot = reachableTempDir("shopsync-shared-")
  })
  afterAll(async () => {
    await fast.close()
    await slow.close()
    fs.rmSync(dataRoot, { recursive: true, force: true })
  })

  it("the process that started the server keeps it until the one that joined it is done", async () => {
    const env = (sim: StoreSimulator, storeId: string, port: number) => ({
      STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: storeId,
      SHOPSYNC_DATA_DIR: dataRoot, SHOPSYNC_PG_PORT: String(port)
    })
    const port = await freePort()
    let joiner: ReturnType<typeof startCli> | undefined
    joined = waitFor(() => joiner?.output().stderr.includes("(already running, joined)") ?? false, "the second process to join")
    const owner = startCli(["sync", "--no-push", "--streams", "orders,refunds"], env(fast, "first", port))
    await waitFor(() => /embedded PostgreSQL in .* on port/.test(owner.output().stderr), "the first process's server")
    joiner = startCli(["sync", "--no-push", "--streams", "orders,refunds,products"], env(slow, "second", port))
    const [first, second] = await Promise.all([owner.done, joiner.done])
    expect(first.stderr).not.toContain("already running")
    expect(second.stderr).toContain("(already running, joined)")
    expect(first.stderr).toMatch(/waiting for \d+ connection\(s\) of other shopsync processes/)
    expect([first.code, second.code]).toEqual([0, 0])
    expect(second.stdout).toMatch(/orders\s+200/)
    // The server is stopped once both are gone.
    expect(fs.existsSync(path.join(dataRoot, "postgres", "postmaster.pid"))).toBe(false)
  }, 120_000)
})
