import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock } from "../../src/simulator/store/index.js"
import { shopsync } from "../../src/cli/commands.js"
import { type CommandNode, commandTree, helpText } from "../../src/cli/help.js"
import { runCli, startCli } from "../support/cli.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"
import { reachableTempDir } from "../support/data-root.js"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const STORE = { STORE_API_URL: "https://shop.test/wp-json/wc/v3", STORE_CONSUMER_KEY: "ck_edges", STORE_CONSUMER_SECRET: "cs_edges" }
const MARKETING = { MARKETING_BASE_URL: "https://m.test", MARKETING_CLIENT_ID: "mk", MARKETING_CLIENT_SECRET: "mk_secret" }

/** The commands a help text lists under COMMANDS. */
const listedCommands = (help: string): ReadonlyArray<string> => {
  const section = help.split(/^COMMANDS$/m)[1]
  return section === undefined ? [] : [...section.matchAll(/^ {2}([a-z][a-z-]*) {2,}/gm)].map((m) => m[1]!)
}

describe("help, piped", () => {
  // Every command's help, read in-process from the tree the CLI runs (commands added later are walked too); the
  // process prints the same text, checked on the root and on a nested command (a process per command is too slow).
  it("every command's help is plain text within 100 columns, with a usage line naming it and every option described", async () => {
    const bare = await runCli([])
    expect(bare.code).toBe(0)
    const top = await runCli(["--help"])
    expect(top.stdout).toBe(bare.stdout)
    expect(top.stdout).toContain("Syncs a commerce store's API into a PostgreSQL warehouse")
    expect(listedCommands(top.stdout)).toEqual(expect.arrayContaining(["sync", "backfill", "push", "migrate", "status", "marketing-hooks", "simulate", "demo"]))
    const piped = { width: 80, bold: false }
    const tree = commandTree(shopsync.descriptor)
    expect(helpText([tree], piped)).toBe(top.stdout)

    const seen = new Map<string, string>()
    const visit = (path: ReadonlyArray<CommandNode>) => {
      const words = path.slice(1).map((n) => n.name)
      const text = helpText(path, piped)
      seen.set(words.join(" "), text)
      expect(text, words.join(" ")).not.toContain("\x1b")
      expect(text.split("\n").filter((line) => line.length > 100), words.join(" ")).toEqual([])
      const usage = text.split("\n")[1]!
      expect(usage, words.join(" ")).toMatch(new RegExp(`^ {2}${["shopsync", ...words].join(" ")}( |$)`))
      // @effect/cli's sentences that only name a type ("A user-defined piece of text.") are left out.
      expect(text).not.toMatch(/A user-defined piece of text|An integer\.|A true or false value/)
      // Every option has a line of its own description under it.
      const options = text.split(/^OPTIONS$/m)[1]?.split(/^[A-Z]+$/m)[0] ?? ""
      for (const [, name, next] of options.matchAll(/^ {2}(-\S.*)\n(.*)$/gm)) expect(next, `${words.join(" ")} ${name}`).toMatch(/^ {6}\S/)
      expect(listedCommands(text)).toEqual(path[path.length - 1]!.children.map((c) => c.name))
      for (const child of path[path.length - 1]!.children) visit([...path, child])
    }
    visit([tree])
    expect([...seen.keys()]).toEqual(expect.arrayContaining(["marketing-hooks ensure", "simulate store", "warehouse backup"]))
    expect(seen.size).toBeGreaterThanOrEqual(14)
    const nested = await runCli(["marketing-hooks", "ensure", "--help"])
    expect(nested.code).toBe(0)
    expect(nested.stdout).toBe(seen.get("marketing-hooks ensure"))
  })
})

describe("command-line mistakes exit 64 saying what was wrong", () => {
  it.each([
    [["snyc"], 'unknown command "snyc"; did you mean "shopsync sync"?'],
    [["marketing-hooks", "lst"], 'unknown command "lst"; did you mean "shopsync marketing-hooks list"?'],
    [["sync", "--wiat"], "unknown option --wiat (did you mean --wait?); see `shopsync sync --help`"],
    [["backfill", "--sinc", "2025-01-01"], "unknown option --sinc (did you mean --since?)"],
    [["sync", "--streams"], "--streams needs a value"],
    [["sync", "now"], 'unexpected argument "now"'],
    [["sync", "--wait-timeout", "soon"], "'soon' is not a integer"],
    [["backfill"], "--since"],
    [["backfill", "--since", "2030-01-01"], "--since 2030-01-01 is in the future"],
    [["backfill", "--since", "2025-03-01", "--until", "2025-02-01"], "--until 2025-02-01 is before --since 2025-03-01"]
  ])("shopsync %j", async (args, message) => {
    const run = await runCli(args, STORE)
    expect(run.code).toBe(64)
    expect(run.stdout).toBe("")
    expect(run.stderr).toContain(message)
    expect(run.stderr.trim().split("\n")).toHaveLength(1)
    // The future --since is about --since: no --until was given.
    if (args.length === 3 && args[0] === "backfill") expect(run.stderr).not.toContain("--until")
  })
})

describe("settings are checked before any work", () => {
  let dir: string
  beforeAll(() => {
    dir = reachableTempDir("shopsync-edges-")
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it.each([
    ["sync", "STORE_REQUEST_TIMEOUT_MS", "0", "a whole number from 1000 to 600000"],
    ["sync", "STORE_REQUEST_TIMEOUT_MS", "-1", "a whole number from 1000 to 600000"],
    ["sync", "STORE_SETTLE_SECONDS", "99999999", "a whole number from 0 to 3600"],
    ["sync", "STORE_MAX_ATTEMPTS", "1000", "a whole number from 1 to 20"],
    ["sync", "MARKETING_BATCH_SIZE", "500", "a whole number from 1 to 200"],
    ["sync", "SHOPSYNC_CHILDREN_FULL_PASS_HOURS", "-2", "a number of hours from 0 to 8760"],
    ["backfill --since 2025-01-01", "STORE_CONCURRENCY", "64", "a whole number from 1 to 16"],
    ["push", "MARKETING_REQUEST_TIMEOUT_MS", "0", "a whole number from 1000 to 600000"],
    ["migrate", "SHOPSYNC_PG_PORT", "99999", "a whole number from 1024 to 65535"],
    ["status", "SHOPSYNC_DELETIONS_HOURS", "1e9", "a number of hours from 0 to 8760"]
  ])("%s with %s=%s exits 1 naming it, its range and the value, before the warehouse starts", async (command, name, value, range) => {
    const dataDir = path.join(dir, `${name}-${value}`)
    const run = await runCli(command.split(" "), { ...STORE, ...MARKETING, SHOPSYNC_DATA_DIR: dataDir, [name]: value })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`invalid ${name} (${name} must be ${range}`)
    expect(run.stderr).toContain(`got ${Number(value)})`)
    expect(run.stderr).toContain("Set it in the environment or in the config file (SHOPSYNC_CONFIG, default ./shopsync.env)")
    expect(run.stderr).not.toContain("warehouse:")
    expect(fs.existsSync(dataDir)).toBe(false)
  })

  it("sync with the marketing push half configured fails before the sync, naming what is missing", async () => {
    const dataDir = path.join(dir, "half-marketing")
    const run = await runCli(["sync"], { ...STORE, MARKETING_BASE_URL: "https://m.test", SHOPSYNC_DATA_DIR: dataDir })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain("missing MARKETING_CLIENT_ID, MARKETING_CLIENT_SECRET")
    expect(fs.existsSync(dataDir)).toBe(false)
  })

  it("a config file with a misspelled key and a secret readable by all is used, with a warning for each", async () => {
    const file = path.join(dir, "loose.env")
    fs.writeFileSync(file, "STORE_ID=main\nSTORE_CONSUMER_SECRT=cs_typo\nSTORE_CONSUMER_SECRET=cs_edges\n")
    fs.chmodSync(file, 0o644)
    const run = await runCli(["migrate", "--help"], { SHOPSYNC_CONFIG: file })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain("shopsync migrate")
    const warnings = run.stderr.trim().split("\n").map((line) => JSON.parse(line) as { message: string; logLevel: string })
    expect(warnings).toEqual([
      { message: `config file: ${file}:2: STORE_CONSUMER_SECRT is not a shopsync setting and is ignored; did you mean STORE_CONSUMER_SECRET?`, logLevel: "WARN" },
      {
        message: `config file: ${file}:3: STORE_CONSUMER_SECRET is a secret, and the file is readable by every user (mode 0644); run chmod 600 ${file}`,
        logLevel: "WARN"
      }
    ].map((w) => expect.objectContaining(w)))
    expect(run.stderr).not.toContain("cs_edges")

    fs.chmodSync(file, 0o600)
    const tight = await runCli(["migrate", "--help"], { SHOPSYNC_CONFIG: file })
    expect(tight.stderr).not.toContain("chmod")
  })

  it("a config file line without = stops every command, naming file:line", async () => {
    const file = path.join(dir, "broken.env")
    fs.writeFileSync(file, "# settings\nSTORE_ID=main\nSTORE_CONSUMER_SECRET cs_edges\n")
    const run = await runCli(["status"], { SHOPSYNC_CONFIG: file, SHOPSYNC_DATA_DIR: path.join(dir, "broken") })
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(`shopsync: ${file}:3: not a KEY=VALUE line; each line must be an assignment such as STORE_ID=main, a # comment, or empty\n`)
    expect(fs.existsSync(path.join(dir, "broken"))).toBe(false)
  })
})

/** Running: an exited orphan stays a zombie until its new parent reaps it, which is not running. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}
const childrenOf = (pid: number): ReadonlyArray<number> => {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).trim().split("\n").filter((l) => l !== "").map(Number)
  } catch {
    return []
  }
}

describe("a sync stopped by SIGTERM", () => {
  let h: Harness
  let onOrders: (() => void) | undefined
  beforeAll(async () => {
    h = await makeHarness({
      clock: manualClock(Date.parse("2026-09-01T12:00:00Z")),
      data: { seed: 8, orders: 2500, start: "2026-01-05", days: 120 },
      onRequest: ({ path }) => {
        if (path === "/orders") onOrders?.()
      }
    })
  })
  afterAll(() => h.close())

  const env = () => ({
    DATABASE_URL: h.dbUrl,
    STORE_API_URL: h.sim.url,
    STORE_CONSUMER_KEY: "ck_demo",
    STORE_CONSUMER_SECRET: "cs_demo",
    STORE_ID,
    STORE_SETTLE_SECONDS: "0"
  })
  const advisoryLocks = async () =>
    (await h.rows<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND d.datname = current_database()"
    ))[0]!.n
  const STOPPED = "shopsync: stopped by SIGTERM; the next run resumes from the last checkpoints\n"

  it("through `npm run`: killing npm leaves no process behind and no lock held; the run says it was stopped", async () => {
    const npm = spawn("npm", ["run", "--silent", "shopsync", "--", "sync", "--streams", "orders,refunds", "--no-push"], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SHOPSYNC_CONFIG: "/dev/null", ...env() },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    npm.stderr.on("data", (d) => (stderr += String(d)))
    npm.stdout.resume()
    // Closed once every process holding the pipes (npm, its shell, the CLI) is gone.
    const closed = new Promise<void>((resolve) => npm.on("close", () => resolve()))
    let tree: ReadonlyArray<number> = []
    const started = new Promise<void>((resolve) => {
      let seen = 0
      onOrders = () => {
        if (++seen !== 3) return
        tree = childrenOf(npm.pid!).flatMap((shell) => [shell, ...childrenOf(shell)])
        npm.kill("SIGTERM")
        resolve()
      }
    })
    await started
    onOrders = undefined
    await closed
    expect(tree.length).toBeGreaterThanOrEqual(1)
    expect(tree.filter(alive)).toEqual([])
    expect(stderr).toContain(STOPPED)
    expect(await advisoryLocks()).toBe(0)
    const runs = await h.rows<{ status: string; error: string | null }>("SELECT status, error FROM sync.runs WHERE store_id = $1 ORDER BY id", [STORE_ID])
    expect(runs.at(-1)).toMatchObject({ status: "failed" })
    expect(runs.at(-1)!.error).toContain("interrupted")
  }, 60_000)

  it("run directly: exit 143, the stopped line, the lock free", async () => {
    const cli = startCli(["sync", "--streams", "orders,refunds", "--no-push"], env())
    let seen = 0
    onOrders = () => {
      if (++seen === 3) cli.child.kill("SIGTERM")
    }
    const stopped = await cli.done
    onOrders = undefined
    expect(stopped.code).toBe(143)
    expect(stopped.stderr.endsWith(STOPPED)).toBe(true)
    expect(await advisoryLocks()).toBe(0)
  }, 60_000)
})
