// What a newcomer reads: the demo and a sync on a real pseudo-terminal (util-linux `script`), rendered as the
// terminal shows them (a redrawn status line leaves only its last state, erased at the end), and the periodic JSON
// progress line a first sync logs when stderr is not a terminal.
import { execFileSync, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli } from "../support/cli.js"
import { freshDatabase } from "../support/database.js"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const haveScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

const shellQuote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`

/** The CLI on a pseudo-terminal: everything it wrote (stdout and stderr share the terminal) and its exit code. */
const onTerminal = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number | null; raw: string }>((resolve) => {
    const entry = inject("cliEntry")
    const cli = [process.execPath, ...(entry ? [entry] : ["--import", "tsx", path.join(root, "src/bin/shopsync.ts")]), ...args]
    const child = spawn("script", ["-qec", cli.map(shellQuote).join(" "), "/dev/null"], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SHOPSYNC_CONFIG: "/dev/null", COLUMNS: "120", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let raw = ""
    child.stdout.on("data", (d) => (raw += String(d)))
    child.on("close", (code) => resolve({ code, raw }))
  })

/** The lines a terminal shows at the end: a carriage return or an erase-line starts the line again. */
const rendered = (raw: string) =>
  raw.replace(/\x1b\[[0-9;]*m/g, "").split("\n").map((line) => line.replace(/\r$/, "").split(/\r|\x1b\[2K/).at(-1)!)
    .filter((line, i, all) => !(i === all.length - 1 && line === ""))

describe.skipIf(!haveScript)("on a terminal", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock: manualClock(Date.parse("2026-09-01T00:00:00Z")), data: { seed: 12, orders: 600, start: "2026-06-01", days: 40 } })
    db = await freshDatabase()
  })
  afterAll(async () => {
    await sim.close()
    await db.drop()
  })

  it("the demo is short and in order: progress, a compact summary, the verdict, the next commands", async () => {
    const { code, raw } = await onTerminal(["demo"], { DATABASE_URL: db.url })
    const lines = rendered(raw)
    expect(code, lines.join("\n")).toBe(0)
    expect(lines.length, lines.join("\n")).toBeLessThanOrEqual(30)
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line))
    const order = [/^shopsync demo: /, /^synced 2,000 orders, \d+ refunds/, /^analytics\.daily_net_sales, store demo: \d+ rows/, /more rows$/, /^total\s+USD/,
      /^verdict: every one of the \d+ rows matches/, /^contacts: \d+ pushed/, /^next:/, /STORE_ID=demo shopsync status/]
    const positions = order.map(at)
    expect(positions.every((p) => p >= 0), lines.join("\n")).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
    // Progress was shown with counts and the time left, then erased.
    expect(raw).toMatch(/orders [\d,]+\/[\d,]+ .*about \d+ s left/)
    expect(lines.some((line) => /about \d+ s left/.test(line))).toBe(false)
  })

  it("a sync's log lines are one line each, with no fiber ids or annotation lines", async () => {
    const env = { DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "tty" }
    const { code, raw } = await onTerminal(["sync", "--no-push", "--streams", "orders,refunds,customers"], env)
    const lines = rendered(raw)
    expect(code, lines.join("\n")).toBe(0)
    const logs = lines.filter((line) => /^\d\d:\d\d:\d\d /.test(line))
    expect(logs.some((line) => /orders: done, 600 rows/.test(line)), lines.join("\n")).toBe(true)
    expect(lines.filter((line) => /\(#\d+\)|^\s+\w+: /.test(line))).toEqual([])
  })
})

describe("off a terminal", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    // Every answer takes 400 ms: 30 pages one at a time take longer than the 10 s between progress lines.
    sim = await startStoreSimulator({ data: { seed: 13, orders: 600, start: "2026-06-01", days: 40 }, faults: [{ kind: "latency", latencyMs: 400 }] })
    db = await freshDatabase()
  })
  afterAll(async () => {
    await sim.close()
    await db.drop()
  })

  it("a first sync logs a JSON progress line every 10 s, with counts and the time left", async () => {
    const run = await runCli(["sync", "--no-push", "--streams", "orders"], {
      DATABASE_URL: db.url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "cron",
      STORE_PER_PAGE: "20", STORE_CONCURRENCY: "1"
    })
    expect(run.code, run.stderr).toBe(0)
    const progress = run.stderr.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))
      .filter((entry) => entry.annotations?.event === "progress")
    // A line while rows were left (one may also come as the stream ends, with nothing left and no time).
    const reading = progress.filter((entry) => entry.annotations.rowsLeft > 0)
    expect(reading.length, run.stderr).toBeGreaterThanOrEqual(1)
    const first = reading[0].annotations
    // What the store lists first (status any): every order but the trashed ones, as the store counts them.
    const listed = sim.state.orders.filter((o) => o.status !== "trash").length
    expect(first.streams.orders.expected).toBe(listed)
    expect(first.rows).toBeGreaterThan(0)
    expect(first.rowsLeft).toBe(listed - first.rows)
    expect(first.etaSeconds).toBeGreaterThan(0)
  })
})
