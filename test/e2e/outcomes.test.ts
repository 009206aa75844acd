// Every outcome of a command, as cron and log shippers see it (stderr not a terminal): one JSON line carrying the
// store id at the level a monitor alerts on, recorded in sync.runs too.
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MarketingSimulator, startMarketingSimulator } from "../../src/simulator/marketing/index.js"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { CATALOGUE, STREAMS } from "../../src/sync/catalogue.js"
import { type CliRun, runCli, startCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"

interface LogLine {
  readonly message: string
  readonly logLevel: string
  readonly annotations: Record<string, unknown>
}

/** The human paragraph that ends a failed command ("shopsync: …"), after the JSON lines. */
const isParagraph = (line: string) => line.startsWith("shopsync: ")

/** Every other stderr line is a JSON object; parsed. */
const logLines = (run: CliRun): LogLine[] =>
  run.stderr.split("\n").filter((l) => l !== "" && !isParagraph(l)).map((l) => {
    expect(l.startsWith("{"), `not a JSON line: ${l}`).toBe(true)
    return JSON.parse(l) as LogLine
  })
/** The lines that state an outcome of the command (not of one stream). */
const outcomeLines = (run: CliRun) => logLines(run).filter((l) => l.annotations["outcome"] !== undefined && l.annotations["stream"] === undefined)

interface RunRow {
  id: number
  status: string
  outcome: string | null
  error: string | null
  rows: number
  stream_results: Array<{ stream: string; outcome: string; rows: number; error?: string }> | null
}

describe("run outcomes as JSON lines and in sync.runs", () => {
  let sim: StoreSimulator
  let mk: MarketingSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let onOrders: (() => void) | undefined
  const STORE_ID = "shop-observed"
  const env = () => ({
    DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo",
    STORE_ID, STORE_SETTLE_SECONDS: "0", STORE_MAX_ATTEMPTS: "2"
  })
  const marketing = () => ({ MARKETING_BASE_URL: mk.baseUrl, MARKETING_CLIENT_ID: "mk_demo", MARKETING_CLIENT_SECRET: "mk_secret", MARKETING_ALLOW_HTTP: "1" })
  const runs = () =>
    sqlRows<RunRow>(db.url, "SELECT id::int AS id, status, outcome, error, rows::int AS rows, stream_results FROM sync.runs WHERE store_id = $1 ORDER BY id", [STORE_ID])
  const lastRun = async () => (await runs()).at(-1)!

  beforeAll(async () => {
    sim = await startStoreSimulator({
      clock: manualClock(Date.parse("2026-09-01T00:00:00Z")),
      data: { seed: 5, orders: 1500, start: "2026-05-01", days: 60 },
      onRequest: ({ path }) => {
        if (path === "/orders") onOrders?.()
      }
    })
    mk = await startMarketingSimulator()
    db = await freshDatabase()
  })
  afterAll(async () => {
    await sim.close()
    await mk.close()
    await db.drop()
  })

  it("succeeded: a line per stream that read rows, the run's summary line and the push's line, each with the store id; recorded", async () => {
    const run = await runCli(["sync"], { ...env(), ...marketing() })
    expect(run.code).toBe(0)
    const lines = logLines(run)
    for (const line of lines) expect(line.annotations["store"]).toBe(STORE_ID)
    const recorded = await lastRun()
    // A stream done with no rows (the store has no variations, downloads or webhooks) is a debug line.
    const read = recorded.stream_results!.filter((s) => s.rows > 0).map((s) => s.stream)
    expect(read.length).toBeLessThan(STREAMS.length)
    const streams = lines.filter((l) => l.annotations["stream"] !== undefined)
    expect(streams.map((l) => l.annotations["stream"]).sort()).toEqual(read.sort())
    expect(streams.every((l) => l.annotations["outcome"] === "done" && l.logLevel === "INFO")).toBe(true)
    expect(streams.find((l) => l.annotations["stream"] === "orders")!.annotations["rows"]).toBe(sim.state.orders.length)

    const [summary, push] = outcomeLines(run)
    expect(summary).toMatchObject({ logLevel: "INFO", annotations: { outcome: "succeeded", run: recorded.id, command: "sync", failed_streams: [] } })
    expect(summary!.annotations["rows"]).toBe(streams.reduce((n, l) => n + Number(l.annotations["rows"]), 0))
    expect(recorded).toMatchObject({ status: "succeeded", outcome: "succeeded", rows: summary!.annotations["rows"] })
    expect(recorded.stream_results!.map((s) => s.stream).sort()).toEqual([...STREAMS].sort())
    expect(recorded.stream_results!.find((s) => s.stream === "orders")).toMatchObject({ outcome: "done", rows: sim.state.orders.length })

    const [contacts] = await sqlRows<{ derived: number }>(db.url, "SELECT count(*)::int AS derived FROM analytics.marketing_contacts WHERE store_id = $1", [STORE_ID])
    expect(push).toMatchObject({
      logLevel: "INFO",
      annotations: { command: "push", outcome: "succeeded", sent: contacts!.derived, failed: 0, pending: 0, store: STORE_ID }
    })
    console.log(`succeeded: ${JSON.stringify(summary)}\npush: ${JSON.stringify(push)}\nstream: ${JSON.stringify(streams[0])}`)
  })

  it("a stream whose refresh interval has not passed says 'not due' on its own debug line, recorded as such", async () => {
    const run = await runCli(["sync", "--no-push"], { ...env(), SHOPSYNC_DEBUG: "1" })
    expect(run.code).toBe(0)
    const notDue = STREAMS.filter((name) => CATALOGUE[name].every > 0)
    const lines = logLines(run).filter((l) => l.annotations["outcome"] === "not due")
    expect(lines.map((l) => l.annotations["stream"]).sort()).toEqual([...notDue].sort())
    expect(lines.every((l) => l.logLevel === "DEBUG")).toBe(true)
    const recorded = await lastRun()
    expect(recorded.stream_results!.filter((s) => s.outcome === "not due").map((s) => s.stream).sort()).toEqual([...notDue].sort())
    console.log(`not due: ${JSON.stringify(lines[0])}`)
  })

  it("partial_failure: one error line naming the failed stream, exit 2, recorded with the stream's error", async () => {
    sim.setFaults([{ kind: "503", pathPrefix: "/products" }])
    try {
      const run = await runCli(["sync", "--no-push", "--streams", "orders,products"], env())
      expect(run.code).toBe(2)
      const failedStream = logLines(run).find((l) => l.annotations["stream"] === "products")!
      expect(failedStream).toMatchObject({ logLevel: "ERROR", annotations: { outcome: "failed", store: STORE_ID } })
      expect(failedStream.annotations["error"]).toContain("503")
      const outcomes = outcomeLines(run)
      expect(outcomes).toHaveLength(1)
      const recorded = await lastRun()
      expect(outcomes[0]).toMatchObject({
        logLevel: "ERROR",
        annotations: { outcome: "partial_failure", run: recorded.id, failed_streams: ["products"], store: STORE_ID }
      })
      expect(recorded).toMatchObject({ status: "failed", outcome: "partial_failure" })
      expect(recorded.stream_results!.find((s) => s.stream === "products")).toMatchObject({ outcome: "failed" })
      expect(recorded.stream_results!.find((s) => s.stream === "orders")).toMatchObject({ outcome: "done" })
      console.log(`partial_failure: ${JSON.stringify(outcomes[0])}`)
    } finally {
      sim.setFaults([])
    }
  })

  it("failed: a wrong secret gives one error line with the cause (then the human paragraph), exit 1, recorded", async () => {
    const run = await runCli(["sync", "--no-push"], { ...env(), STORE_CONSUMER_SECRET: "cs_wrong_secret_value" })
    expect(run.code).toBe(1)
    expect(run.stderr).not.toContain("cs_wrong_secret_value")
    expect(run.stderr.trimEnd().split("\n").filter(isParagraph)).toHaveLength(1)
    const outcomes = outcomeLines(run)
    expect(outcomes).toHaveLength(1)
    const recorded = await lastRun()
    expect(outcomes[0]).toMatchObject({ logLevel: "ERROR", annotations: { outcome: "failed", run: recorded.id, store: STORE_ID } })
    expect(outcomes[0]!.annotations["error"]).toContain("STORE_CONSUMER_KEY")
    expect(recorded).toMatchObject({ status: "failed", outcome: "failed" })
    expect(recorded.error).toContain("401")
    console.log(`failed: ${JSON.stringify(outcomes[0])}`)

    // Before any run could start (the warehouse unreachable): the same outcome, from the command.
    const noWarehouse = await runCli(["sync", "--no-push"], {
      ...env(), DATABASE_URL: "postgres://shopsync:pw@127.0.0.1:9/warehouse", SHOPSYNC_WAREHOUSE_RETRY_SECONDS: "1"
    })
    expect(noWarehouse.code).toBe(1)
    const [line, ...more] = outcomeLines(noWarehouse)
    expect(more).toEqual([])
    expect(line).toMatchObject({ logLevel: "ERROR", annotations: { outcome: "failed", command: "sync", store: STORE_ID } })
    expect(line!.annotations["error"]).toContain("could not reach the warehouse")
  })

  it("skipped_locked: a warning line, exit 75, recorded without holding the lock (the next run does not take it for a dead one)", async () => {
    const other = new pg.Client({ connectionString: db.url })
    await other.connect()
    try {
      await other.query("SELECT pg_advisory_lock(hashtext('shopsync:sync'), hashtext($1))", [STORE_ID])
      const run = await runCli(["sync", "--no-push"], env())
      expect(run.code).toBe(75)
      expect(run.stdout).toBe("")
      const outcomes = outcomeLines(run)
      expect(outcomes).toHaveLength(1)
      const recorded = await lastRun()
      expect(outcomes[0]).toMatchObject({ logLevel: "WARN", annotations: { outcome: "skipped_locked", run: recorded.id, store: STORE_ID } })
      expect(recorded).toMatchObject({ status: "skipped", outcome: "skipped_locked" })
      console.log(`skipped_locked: ${JSON.stringify(outcomes[0])}`)
    } finally {
      await other.end()
    }
    const skippedId = (await lastRun()).id
    expect((await runCli(["sync", "--no-push"], env())).code).toBe(0)
    expect((await runs()).find((r) => r.id === skippedId)).toMatchObject({ status: "skipped", outcome: "skipped_locked" })
  })

  it("interrupted: SIGTERM mid-run gives a warning line with the run id, exit 143, recorded as interrupted", async () => {
    const cli = startCli(["sync", "--no-push", "--streams", "orders", "--wait"], env())
    // A fresh start of the orders stream: full re-read after the state is forgotten.
    await sqlRows(db.url, "DELETE FROM sync.state WHERE store_id = $1 AND stream LIKE 'orders%'", [STORE_ID])
    let seen = 0
    onOrders = () => {
      if (++seen === 4) cli.child.kill("SIGTERM")
    }
    const run = await cli.done
    onOrders = undefined
    expect(run.code).toBe(143)
    const outcomes = outcomeLines(run)
    expect(outcomes).toHaveLength(1)
    const recorded = await lastRun()
    expect(outcomes[0]).toMatchObject({ logLevel: "WARN", annotations: { outcome: "interrupted", run: recorded.id, store: STORE_ID } })
    expect(recorded).toMatchObject({ status: "failed", outcome: "interrupted" })
    console.log(`interrupted: ${JSON.stringify(outcomes[0])}`)
  })

  it("status --json: the same facts as one document; status fits 100 columns; another store's status says which stores exist", async () => {
    const json = await runCli(["status", "--json"], env())
    expect(json.code).toBe(0)
    const doc = JSON.parse(json.stdout) as {
      store: string
      streams: Array<{ stream: string; rows: number | null; strategy: string }>
      runs: Array<{ run: number; outcome: string }>
      outbox: { counts: { pending: number } }
    }
    expect(doc.store).toBe(STORE_ID)
    const byStream = new Map(doc.streams.map((s) => [s.stream, s]))
    expect(byStream.get("customers")!.rows).toBe(sim.state.customers.length)
    expect(byStream.get("variations")!.rows).toBe(sim.state.variations.length)
    // The products stream writes the changed products' variations: its rows count them too.
    expect(byStream.get("products")!.rows).toBe(sim.state.products.length + sim.state.variations.length)
    expect(byStream.get("orders")!.strategy).toBe(CATALOGUE.orders.strategy)
    const recorded = await runs()
    expect(doc.runs.map((r) => [r.run, r.outcome])).toEqual(recorded.slice(-5).reverse().map((r) => [r.id, r.outcome]))

    const text = await runCli(["status"], env())
    expect(text.code).toBe(0)
    for (const line of text.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100)
    // The cursor is a whole second (no "#id": the store gives a second's rows in no order), then the rows.
    expect(text.stdout).toMatch(new RegExp(`products\\s+\\S+Z\\s+${sim.state.products.length + sim.state.variations.length}\\s`))
    expect(text.stdout).toContain("interrupted")
    // The orders stream's last run was stopped mid-way.
    expect(text.stdout).toMatch(/^orders .* unfinished$/m)
    expect(text.stdout).toContain("skipped_locked")

    const elsewhere = await runCli(["status"], { ...env(), STORE_ID: "not-synced" })
    expect(elsewhere.code).toBe(0)
    expect(elsewhere.stdout).toContain("no stream of store not-synced has run yet")
    expect(elsewhere.stdout).toContain(`STORE_ID=${STORE_ID} shopsync status`)
    console.log(`${text.stdout}\n${elsewhere.stdout}`)
  })
})

describe("shopsync check", () => {
  let sim: StoreSimulator
  let mk: MarketingSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let env: Record<string, string>
  beforeAll(async () => {
    sim = await startStoreSimulator({
      clock: manualClock(Date.parse("2026-09-01T00:00:00Z")),
      data: { seed: 7, orders: 50, start: "2026-08-01", days: 20 },
      routes: { disabled: ["/webhooks"], forbidden: ["/system_status"] }
    })
    mk = await startMarketingSimulator()
    db = await freshDatabase()
    env = {
      DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "checked",
      MARKETING_BASE_URL: mk.baseUrl, MARKETING_CLIENT_ID: "mk_demo", MARKETING_CLIENT_SECRET: "mk_secret", MARKETING_ALLOW_HTTP: "1"
    }
  })
  afterAll(async () => {
    await sim.close()
    await mk.close()
    await db.drop()
  })

  const checks = (run: CliRun) => new Map(logLines(run).filter((l) => l.annotations["check"] !== undefined).map((l) => [l.annotations["check"], l]))

  it("a good configuration: every check passes (routes the store does not serve are listed), exit 0, nothing synced", async () => {
    // A fresh warehouse: nothing to write to yet, the role may create schemas; check creates none.
    const fresh = await runCli(["check"], env)
    expect(fresh.code).toBe(0)
    expect(checks(fresh).get("warehouse.migrations")!.annotations["detail"]).toMatch(/migrations to apply/)
    const [schemas] = await sqlRows<{ created: boolean }>(db.url, "SELECT to_regclass('sync.runs') IS NOT NULL AS created")
    expect(schemas!.created).toBe(false)

    expect((await runCli(["migrate"], env)).code).toBe(0)
    const run = await runCli(["check"], env)
    expect(run.code).toBe(0)
    const byCheck = checks(run)
    for (const name of ["store.reachable", "store.credentials", "warehouse.connect", "warehouse.migrations", "warehouse.write", "marketing.token"]) {
      expect(byCheck.get(name)?.annotations["status"], name).toBe("ok")
    }
    for (const stream of STREAMS) expect(byCheck.get(`store.route.${stream}`), stream).toBeDefined()
    expect(byCheck.get("store.route.webhooks")!.annotations["status"]).toBe("unavailable")
    expect(byCheck.get("store.route.system_status_tools")!.annotations["status"]).toBe("unavailable")
    expect(byCheck.get("store.route.orders")!.annotations["status"]).toBe("ok")
    expect(byCheck.get("warehouse.migrations")!.annotations["detail"]).toMatch(/^up to date/)
    for (const line of logLines(run)) expect(line.annotations["store"]).toBe("checked")
    expect(run.stdout).toMatch(/^ok\s+store\.credentials\s/m)
    // Nothing synced, nothing written.
    const [written] = await sqlRows<{ orders: number; runs: number }>(db.url,
      "SELECT (SELECT count(*)::int FROM store.orders) AS orders, (SELECT count(*)::int FROM sync.runs) AS runs")
    expect(written).toEqual({ orders: 0, runs: 0 })
    console.log(`check: ${JSON.stringify(byCheck.get("store.credentials"))}\n${run.stdout}`)
  })

  it("a wrong secret fails the store's credentials check with its fix: exit 3", async () => {
    const run = await runCli(["check"], { ...env, STORE_CONSUMER_SECRET: "cs_wrong_secret_value" })
    expect(run.code).toBe(3)
    expect(run.stderr + run.stdout).not.toContain("cs_wrong_secret_value")
    const failed = checks(run).get("store.credentials")!
    expect(failed).toMatchObject({ logLevel: "ERROR", annotations: { status: "failed" } })
    expect(failed.annotations["fix"]).toContain("STORE_CONSUMER_SECRET")
    expect(run.stdout).toMatch(/^FAILED\s+store\.credentials\s/m)
    expect(checks(run).get("warehouse.write")!.annotations["status"]).toBe("ok")
  })

  it("an unreachable store: exit 3; a wrong marketing secret: exit 5; an unreachable warehouse: exit 4; two of them: 6", async () => {
    const unreachable = await runCli(["check"], { ...env, STORE_API_URL: "http://127.0.0.1:9/wp-json/wc/v3" })
    expect(unreachable.code).toBe(3)
    expect(checks(unreachable).get("store.reachable")!.annotations["status"]).toBe("failed")

    const marketing = await runCli(["check"], { ...env, MARKETING_CLIENT_SECRET: "mk_wrong" })
    expect(marketing.code).toBe(5)
    expect(checks(marketing).get("marketing.token")).toMatchObject({ logLevel: "ERROR", annotations: { status: "failed" } })
    expect(checks(marketing).get("store.credentials")!.annotations["status"]).toBe("ok")

    const warehouse = await runCli(["check"], { ...env, DATABASE_URL: "postgres://shopsync:pw@127.0.0.1:9/warehouse" })
    expect(warehouse.code).toBe(4)
    expect(checks(warehouse).get("warehouse.connect")!.annotations["status"]).toBe("failed")

    const both = await runCli(["check"], { ...env, DATABASE_URL: "postgres://shopsync:pw@127.0.0.1:9/warehouse", MARKETING_CLIENT_SECRET: "mk_wrong" })
    expect(both.code).toBe(6)
  })
})
