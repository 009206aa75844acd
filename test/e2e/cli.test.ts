import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { CATALOGUE, STREAMS } from "../../src/sync/catalogue.js"
import { runCli } from "../support/cli.js"
import { freshDatabase } from "../support/database.js"
import { reachableTempDir } from "../support/data-root.js"

describe("the shopsync command line", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>
  beforeAll(async () => {
    sim = await startStoreSimulator({
      clock: manualClock(Date.parse("2026-09-01T00:00:00Z")),
      data: { seed: 3, orders: 300, start: "2026-05-01", days: 30 }
    })
    db = await freshDatabase()
    env = { DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "cli" }
  })
  afterAll(async () => {
    await sim.close()
    await db.drop()
  })

  it("explains itself with --help, for the tool and for each command", async () => {
    const top = await runCli(["--help"])
    expect(top.code).toBe(0)
    for (const command of ["sync", "backfill", "migrate", "status", "simulate", "demo"]) expect(top.stdout).toContain(command)
    const sync = await runCli(["sync", "--help"])
    expect(sync.code).toBe(0)
    expect(sync.stdout).toContain("--streams")
    expect(sync.stdout).toContain("--no-push")
  })

  it("syncs, says which warehouse it uses, and reports per-stream status", async () => {
    const run = await runCli(["sync", "--no-push"], env)
    expect(run.stderr).not.toContain("cs_demo")
    expect(run.code).toBe(0)
    expect(run.stderr).toContain("(DATABASE_URL)")
    expect(run.stdout).toMatch(/orders\s+\d+/)
    // Not a terminal: one structured JSON log line per stream that read rows; the table on stdout has every stream.
    const streamLines = run.stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)).filter((l) => l.annotations?.stream)
    const read = STREAMS.filter((stream) => {
      const row = new RegExp(`^${stream}\\s+(\\d+)\\s+(\\d+)\\s`, "m").exec(run.stdout)
      expect(row, stream).not.toBeNull()
      return Number(row![1]) + Number(row![2]) > 0
    })
    expect(read).toContain("orders")
    expect(streamLines.map((l) => l.annotations.stream).sort()).toEqual([...read].sort())

    const status = await runCli(["status"], env)
    expect(status.code).toBe(0)
    expect(status.stdout).toMatch(/orders\s+\d{4}-\d{2}-\d{2}T/)
    expect(status.stdout).toContain("succeeded")
    // Every stream with how it reads the store (all columns, whole texts: --wide); children with their last full pass.
    const wide = await runCli(["status", "--wide"], env)
    expect(wide.code).toBe(0)
    for (const stream of STREAMS) expect(wide.stdout).toContain(CATALOGUE[stream].strategy)
    // 300 orders: the first run read the notes of 30 of them (SHOPSYNC_CHILDREN_PASS_PERCENT 10); the pass goes on.
    expect(status.stdout).toMatch(/order_notes\s+full pass under way, after \d+/)
    // The rows the warehouse holds for each stream, whatever way the stream reads the store.
    expect(status.stdout).toMatch(new RegExp(`customers\\s+full pass \\S+\\s+${sim.state.customers.length}\\s`))
    expect(status.stdout).toMatch(new RegExp(`orders\\s+\\S+Z\\s+${sim.state.orders.length}\\s`))
  })

  it("fails with one paragraph naming the cause, never showing a secret", async () => {
    const missing = await runCli(["sync"], { ...env, STORE_API_URL: undefined })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("STORE_API_URL")

    const wrongSecret = await runCli(["sync", "--no-push"], { ...env, STORE_CONSUMER_SECRET: "cs_wrong_secret_value" })
    expect(wrongSecret.code).toBe(1)
    expect(wrongSecret.stderr).toContain("STORE_CONSUMER_KEY")
    expect(wrongSecret.stderr).toContain("401")
    expect(wrongSecret.stderr).not.toContain("cs_wrong_secret_value")

    // A run waits SHOPSYNC_WAREHOUSE_RETRY_SECONDS (default 60) for a warehouse that refuses: cut here to the message.
    const noWarehouse = await runCli(["sync", "--no-push"], {
      ...env, DATABASE_URL: "postgres://shopsync:pw_not_shown@127.0.0.1:9/warehouse", SHOPSYNC_WAREHOUSE_RETRY_SECONDS: "1"
    })
    expect(noWarehouse.code).toBe(1)
    expect(noWarehouse.stderr).toContain("could not reach the warehouse (ECONNREFUSED")
    expect(noWarehouse.stderr).not.toContain("pw_not_shown")

    const notUrl = await runCli(["status"], { ...env, DATABASE_URL: "warehouse.internal:5432" })
    expect(notUrl.code).toBe(1)
    expect(notUrl.stderr).toContain("invalid DATABASE_URL (DATABASE_URL must be a PostgreSQL URL")

    const wrongRoot = await runCli(["sync", "--no-push"], { ...env, STORE_API_URL: sim.url.replace("/wc/v3", "/shop/v3") })
    expect(wrongRoot.code).toBe(1)
    expect(wrongRoot.stderr).toContain("rest_no_route")
    expect(wrongRoot.stderr).toContain("check STORE_API_URL")

    const badStream = await runCli(["sync", "--streams", "orders,coupons"], env)
    expect(badStream.code).toBe(64)
    expect(badStream.stderr).toContain("coupons")

    const badDay = await runCli(["backfill", "--since", "2026-13-01"], env)
    expect(badDay.code).not.toBe(0)
    expect(badDay.stdout + badDay.stderr).toContain("YYYY-MM-DD")
  })

  it("without DATABASE_URL, a busy embedded port fails naming the port and how to move it; a free one works (both set in the config file)", async () => {
    const dataRoot = reachableTempDir("shopsync-cli-")
    const busy = net.createServer()
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve))
    const port = (busy.address() as net.AddressInfo).port
    // The embedded server's settings from the config file, like any other.
    const configFile = path.join(dataRoot, "shopsync.env")
    fs.writeFileSync(configFile, `SHOPSYNC_DATA_DIR=${dataRoot}\nSHOPSYNC_PG_PORT=${port}\n`)
    const embeddedEnv = { ...env, DATABASE_URL: undefined, SHOPSYNC_CONFIG: configFile }
    try {
      const refused = await runCli(["migrate"], embeddedEnv)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`port ${port}`)
      expect(refused.stderr).toContain("SHOPSYNC_PG_PORT")
      await new Promise<void>((resolve) => busy.close(() => resolve()))
      const started = await runCli(["migrate"], embeddedEnv)
      expect(started.code).toBe(0)
      expect(started.stderr).toContain(`embedded PostgreSQL in ${path.join(dataRoot, "postgres")} on port ${port}`)
    } finally {
      busy.close()
      fs.rmSync(dataRoot, { recursive: true, force: true })
    }
  })

  it("migrate is idempotent", async () => {
    const first = await runCli(["migrate"], env)
    const second = await runCli(["migrate"], env)
    expect([first.code, second.code]).toEqual([0, 0])
    expect(second.stdout).toContain("up to date")
  })
})
