import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as tls from "node:tls"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { shopsync } from "../../src/cli/commands.js"
import { type CommandNode, commandTree, helpText } from "../../src/cli/help.js"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { type CliRun, runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { reachableTempDir } from "../support/data-root.js"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const STORE = { STORE_CONSUMER_KEY: "ck_friction", STORE_CONSUMER_SECRET: "cs_friction" }

/** A loopback HTTPS server with a self-signed certificate (made by openssl for this run), answering JSON to anyone. */
const startTlsServer = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsync-tls-"))
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(dir, "key.pem"), "-out",
    path.join(dir, "cert.pem"), "-days", "1", "-subj", "/CN=127.0.0.1"], { stdio: "ignore" })
  let handshakes = 0
  const server = tls.createServer({ key: fs.readFileSync(path.join(dir, "key.pem")), cert: fs.readFileSync(path.join(dir, "cert.pem")) }, (socket) => {
    handshakes++
    socket.end("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n[]")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    handshakes: () => handshakes,
    close: () => new Promise<void>((resolve) => server.close(() => (fs.rmSync(dir, { recursive: true, force: true }), resolve())))
  }
}

describe("an http:// address on an HTTPS-only port", () => {
  let server: Awaited<ReturnType<typeof startTlsServer>>
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    server = await startTlsServer()
    db = await freshDatabase()
  })
  afterAll(async () => {
    await server.close()
    await db.drop()
  })

  it("sync says at once that the store speaks HTTPS and which address to use, and exits 1 without retrying", async () => {
    const apiUrl = `http://127.0.0.1:${server.port}/wp-json/wc/v3`
    const started = Date.now()
    const run = await runCli(["sync", "--no-push"], { ...STORE, STORE_API_URL: apiUrl, DATABASE_URL: db.url, STORE_ID: "tls" })
    const seconds = (Date.now() - started) / 1000
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`the store at http://127.0.0.1:${server.port} speaks HTTPS`)
    expect(run.stderr).toContain(`use https://, set STORE_API_URL=https://127.0.0.1:${server.port}/wp-json/wc/v3`)
    expect(run.stderr).not.toContain("retrying")
    expect(run.stderr).not.toContain("attempts")
    // Start-up and the warehouse's migration included; the old way was 8 attempts over 51 s.
    expect(seconds).toBeLessThan(30)
    expect(run.stderr).not.toContain("cs_friction")
  })

  it("check names the same fix", async () => {
    const run = await runCli(["check"], { ...STORE, STORE_API_URL: `http://127.0.0.1:${server.port}/wp-json/wc/v3`, DATABASE_URL: db.url })
    expect(run.code).toBe(3)
    expect(run.stdout + run.stderr).toContain("speaks HTTPS")
    expect(run.stdout + run.stderr).toContain("use the store's https:// address in STORE_API_URL")
  })
})

describe("an http:// marketing service on an HTTPS-only port", () => {
  it("marketing-hooks list says at once that it speaks HTTPS, without retrying", async () => {
    const server = await startTlsServer()
    try {
      const started = Date.now()
      const run = await runCli(["marketing-hooks", "list"], {
        MARKETING_BASE_URL: `http://127.0.0.1:${server.port}`, MARKETING_CLIENT_ID: "mk", MARKETING_CLIENT_SECRET: "mk_secret", MARKETING_ALLOW_HTTP: "1"
      })
      expect(run.code).toBe(1)
      expect(run.stderr).toContain(`the marketing service at http://127.0.0.1:${server.port} speaks HTTPS`)
      expect(run.stderr).toContain("use https:// in MARKETING_BASE_URL")
      expect(run.stderr).not.toContain("retrying")
      expect(run.stderr).not.toContain("mk_secret")
      expect(Date.now() - started).toBeLessThan(20_000)
    } finally {
      await server.close()
    }
  })
})

describe("environment variables named like shopsync's that are no setting", () => {
  it("each gets a warning with the setting probably meant; a missing setting names the misspelling set instead", async () => {
    const run = await runCli(["sync"], {
      STORE_API_URL: "https://shop.test/wp-json/wc/v3",
      STORE_CONSUMER_KEY: "ck_x",
      STORE_CONSUMER_SECRT: "cs_typo",
      STORE_CONCURENCY: "4",
      SHOPSYNC_MASTER_KEY_FIL: "/etc/key",
      MARKETING_CLIENTID: "mk",
      STORE_NOTHING_LIKE_IT: "1",
      // What Kubernetes defines for a Service named shopsync: not a mistake.
      SHOPSYNC_PORT: "tcp://10.0.0.7:8787",
      SHOPSYNC_SERVICE_HOST: "10.0.0.7",
      // Settings, the _FILE variants included, are not warned about.
      SHOPSYNC_ADMIN_TOKEN_FILE: "/nonexistent",
      SHOPSYNC_DEBUG: "0"
    })
    expect(run.code).toBe(1)
    const lines = run.stderr.trim().split("\n")
    const warnings = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { message: string; logLevel: string })
    expect(warnings.map((w) => w.logLevel)).toEqual(["WARN", "WARN", "WARN", "WARN", "WARN"])
    expect(warnings.map((w) => w.message)).toEqual([
      "environment: MARKETING_CLIENTID is not a shopsync setting and is ignored; did you mean MARKETING_CLIENT_ID?",
      "environment: SHOPSYNC_MASTER_KEY_FIL is not a shopsync setting and is ignored; did you mean SHOPSYNC_MASTER_KEY_FILE?",
      "environment: STORE_CONCURENCY is not a shopsync setting and is ignored; did you mean STORE_CONCURRENCY?",
      "environment: STORE_CONSUMER_SECRT is not a shopsync setting and is ignored; did you mean STORE_CONSUMER_SECRET?",
      "environment: STORE_NOTHING_LIKE_IT is not a shopsync setting and is ignored; config/shopsync.env.example lists the settings"
    ])
    expect(lines[lines.length - 1]).toContain("missing STORE_CONSUMER_SECRET (STORE_CONSUMER_SECRT is set: a misspelling?)")
    expect(run.stderr).not.toContain("cs_typo")
  })
})

/** Runs a command line in the checkout as a user would type it (through sh), with `env` only. */
const sh = (line: string, env: Record<string, string>) =>
  new Promise<CliRun>((resolve) => {
    const child = spawn("sh", ["-c", line], { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += String(d)))
    child.stderr.on("data", (d) => (stderr += String(d)))
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })

const timed = async <A>(promise: Promise<A>) => {
  const started = Date.now()
  const value = await promise
  return { value, ms: Date.now() - started }
}

/** The command lines of a markdown file's sh blocks. */
const shellLines = (file: string): ReadonlyArray<string> =>
  [...fs.readFileSync(path.join(root, file), "utf8").matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n").map((l) => l.trim()))

describe("the README's commands, as written", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    db = await freshDatabase()
  })
  afterAll(() => db.drop())

  it("every example runs the CLI as `npx shopsync`, never a bare `shopsync` nor `npm run … shopsync`", () => {
    for (const file of ["README.md", "docs/operating.md", "docs/analytics.md"]) {
      for (const line of shellLines(file)) {
        const code = line.replace(/\s#.*$/, "")
        expect(code, `${file}: ${line}`).not.toMatch(/npm run\b.*\bshopsync/)
        // `shopsync` where a command starts: the line's start, after a pipe, &&, or variable assignments.
        expect(code, `${file}: ${line}`).not.toMatch(/(^|[|&;]\s*|^(\w+=\S+\s+)+)shopsync\s/)
      }
    }
    expect(shellLines("README.md")).toContain("npm ci && npx shopsync demo")
  })

  it("after the demo, the command its closing line prints runs as printed (npx shopsync, in the checkout)", async () => {
    // npm offline: npx must find the checkout's own bin, never fetch a package of that name. Without scripts: the first
    // npx in a checkout runs its `prepare` (a bundle into dist/), which would rewrite the CLI other test files are running.
    const env = { SHOPSYNC_CONFIG: "/dev/null", DATABASE_URL: db.url, npm_config_offline: "true", npm_config_ignore_scripts: "true" }
    const help = await sh("npx shopsync --help", env)
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toContain("USAGE")
    const demo = await sh("npx shopsync demo --orders 40", env)
    expect(demo.code, demo.stderr).toBe(0)
    const hint = /^\s+(STORE_ID=demo npx shopsync status)\s/m.exec(demo.stdout)
    expect(hint, demo.stdout.slice(-600)).not.toBeNull()
    expect(demo.stdout).toMatch(/^\s+npx shopsync warehouse start\s/m)
    const status = await sh(hint![1]!, env)
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toContain("store demo (STORE_ID)")
    expect(status.stdout).toMatch(/^orders\s/m)
  }, 300_000)
})

describe("--version, --help and --wizard", () => {
  it("--version answers from package.json without loading the CLI: a fraction of --help's time", async () => {
    const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version as string
    const fast = await timed(runCli(["--version"]))
    expect(fast.value).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" })
    const launcher = await timed(sh("node bin/shopsync.mjs --version", {}))
    expect(launcher.value).toMatchObject({ code: 0, stdout: `${version}\n` })
    const help = await timed(runCli(["--help"]))
    expect(help.value.code).toBe(0)
    console.log(`--version ${fast.ms} ms (bin/shopsync.mjs ${launcher.ms} ms), --help ${help.ms} ms`)
    // Measured: 0.15 s against 1.4 s compiled; it loaded the whole CLI before (1.4–4 s, 170–290 MB).
    expect(fast.ms * 3).toBeLessThan(help.ms)
  })

  it("no help says 'This setting is optional.' (the usage's brackets do)", async () => {
    const texts: Array<string> = []
    const visit = (path: ReadonlyArray<CommandNode>) => {
      texts.push(helpText(path, { width: 80, bold: false }))
      for (const child of path[path.length - 1]!.children) visit([...path, child])
    }
    visit([commandTree(shopsync.descriptor)])
    expect(texts.filter((t) => t.includes("This setting is optional"))).toEqual([])
    const add = await runCli(["stores", "add", "--help"])
    expect(add.stdout).toContain("--secret-env NAME")
    expect(add.stdout).toContain("[--secret-env NAME]")
    expect(add.stdout).not.toContain("optional.")
  })

  it("--wizard with standard input not a terminal exits 64 at once, saying why", async () => {
    for (const args of [["--wizard"], ["sync", "--wizard"]]) {
      const { value: run, ms } = await timed(runCli(args))
      expect(run.code).toBe(64)
      expect(run.stderr).toContain("--wizard asks its questions on a terminal, and standard input is not one")
      expect(ms).toBeLessThan(15_000)
    }
  })
})

describe("usage errors exit 64, as the exit-code table says", () => {
  it("the table documents 64 for usage errors", () => {
    expect(fs.readFileSync(path.join(root, "docs/operating.md"), "utf8")).toMatch(/^\| 64 \| all \| usage error/m)
  })

  it.each([
    [["sync", "--streams", "ordrs"], 'unknown stream "ordrs" (did you mean orders?) in --streams'],
    [["sync", "--streams", "orders,refunds,custmers"], 'unknown stream "custmers" (did you mean customers?) in --streams'],
    [["backfill", "--since", "2025-01-01", "--streams", "ordrs"], 'unknown stream "ordrs" (did you mean orders?)'],
    [["stores", "sync", "shop1", "--streams", "refund"], 'unknown stream "refund" (did you mean refunds?)'],
    [["verify", "--resources", "order"], 'unknown resource "order" (did you mean orders?) in --resources'],
    [["warehouse", "grant", "Bad-Name"], '"Bad-Name" is not a plain login name'],
    [["warehouse", "revoke", "shopsync"], '"shopsync" is one of shopsync\'s own roles'],
    [["sync", "--wizard"], "--wizard asks its questions on a terminal"],
    [["statsu"], 'did you mean "shopsync status"?']
  ])("shopsync %j", async (args, message) => {
    const run = await runCli(args, { STORE_API_URL: "https://shop.test/wp-json/wc/v3", ...STORE })
    expect(run.code).toBe(64)
    expect(run.stdout).toBe("")
    expect(run.stderr).toContain(message)
  })
})

describe("status before there is a warehouse", () => {
  it("embedded: says so and how to make one, exits 1, and creates nothing", async () => {
    const dir = reachableTempDir("shopsync-fresh-")
    try {
      const run = await runCli(["status"], { SHOPSYNC_DATA_DIR: dir })
      expect(run.code).toBe(1)
      expect(run.stderr).toContain(`no warehouse yet (the embedded one would live in ${path.join(dir, "postgres")}`)
      expect(run.stderr).toContain("`shopsync sync`")
      expect(run.stderr).toContain("`shopsync demo`")
      expect(run.stderr).toContain("`shopsync migrate`")
      expect(fs.readdirSync(dir)).toEqual([])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("DATABASE_URL on a database shopsync never migrated: the same, and no schema is made", async () => {
    const db = await freshDatabase()
    try {
      const run = await runCli(["status", "--json"], { DATABASE_URL: db.url })
      expect(run.code).toBe(1)
      expect(run.stdout).toBe("")
      expect(run.stderr).toContain("no warehouse yet (the database holds none of shopsync's tables)")
      expect(await sqlRows(db.url, "SELECT nspname FROM pg_namespace WHERE nspname IN ('store', 'sync', 'analytics', 'marketing')")).toEqual([])
    } finally {
      await db.drop()
    }
  })
})

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

describe("status --json gives its times as ISO 8601 in UTC", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock: manualClock(Date.parse("2026-09-01T00:00:00Z")), data: { seed: 5, orders: 30, start: "2026-08-01", days: 20 } })
    db = await freshDatabase()
  })
  afterAll(async () => {
    await sim.close()
    await db.drop()
  })

  it("each run's start and each stream's last start and success, as the warehouse recorded them", async () => {
    const env = { STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "iso", DATABASE_URL: db.url, STORE_SETTLE_SECONDS: "0" }
    const synced = await runCli(["sync", "--no-push", "--streams", "orders,refunds"], env)
    expect(synced.code, synced.stderr).toBe(0)
    const run = await runCli(["status", "--json"], env)
    expect(run.code, run.stderr).toBe(0)
    const doc = JSON.parse(run.stdout) as {
      streams: Array<{ stream: string; last_started: string | null; last_success: string | null }>
      runs: Array<{ run: number; started: string }>
    }
    const [recorded] = await sqlRows<{ id: number; started: string }>(db.url,
      `SELECT id::int, to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS started FROM sync.runs WHERE store_id = 'iso' ORDER BY id DESC LIMIT 1`)
    expect(doc.runs[0]).toMatchObject({ run: recorded!.id, started: recorded!.started })
    const orders = doc.streams.find((s) => s.stream === "orders")!
    const [state] = await sqlRows<{ started: string; success: string }>(db.url,
      `SELECT to_char(last_started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS started,
              to_char(last_success_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS success
       FROM sync.state WHERE store_id = 'iso' AND stream = 'orders'`)
    expect(orders).toMatchObject({ last_started: state!.started, last_success: state!.success })
    const times = [...doc.runs.map((r) => r.started), ...doc.streams.flatMap((s) => [s.last_started, s.last_success])].filter((t) => t !== null)
    expect(times.length).toBeGreaterThan(2)
    for (const t of times) expect(t).toMatch(ISO)
  })
})

describe("warehouse revoke, and logins across a backup", () => {
  const login = `friction_${randomBytes(4).toString("hex")}`
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let target: Awaited<ReturnType<typeof freshDatabase>>
  let dir: string
  beforeAll(async () => {
    db = await freshDatabase()
    target = await freshDatabase()
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsync-revoke-"))
  })
  afterAll(async () => {
    await sqlRows(db.url, `DROP ROLE IF EXISTS ${login}`)
    await db.drop()
    await target.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("a revoked login can no longer read or connect, its open session ended; revoking an unknown login is a clear error", async () => {
    const env = { DATABASE_URL: db.url }
    const granted = await runCli(["warehouse", "grant", login], env)
    expect(granted.code, granted.stderr).toBe(0)
    const url = granted.stdout.split("\n").find((l) => l.startsWith(`postgres://${login}:`))!
    const session = new pg.Client({ connectionString: url })
    session.on("error", () => {})
    await session.connect()
    expect((await session.query("SELECT count(*)::int AS n FROM analytics.daily_net_sales")).rows).toEqual([{ n: 0 }])

    const backupFile = path.join(dir, "warehouse.backup")
    expect((await runCli(["warehouse", "backup", backupFile], env)).code).toBe(0)

    const revoked = await runCli(["warehouse", "revoke", login], env)
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.stdout).toBe(`revoked shopsync_reader from ${login} and dropped the login (its 1 open session(s) ended): it can no longer connect\n`)
    await expect(session.query("SELECT count(*) FROM analytics.daily_net_sales")).rejects.toThrow()
    const again = new pg.Client({ connectionString: url })
    await expect(again.connect()).rejects.toThrow(/password authentication failed|does not exist/)
    expect(await sqlRows(db.url, `SELECT rolname FROM pg_roles WHERE rolname = '${login}'`)).toEqual([])

    const unknown = await runCli(["warehouse", "revoke", login], env)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain(`could not revoke shopsync_reader from ${login}: no such login on this server`)

    // The backup was taken while the login held the role: restore names it, with the command that re-creates it.
    const restored = await runCli(["warehouse", "restore", backupFile], { DATABASE_URL: target.url })
    expect(restored.code, restored.stderr).toBe(0)
    // (Roles are the server's: logins other test files drop meanwhile may be named too.)
    expect(restored.stdout).toMatch(new RegExp(`^logins are not in a backup: re-create .*\\b${login}\\b.* with .*\`shopsync warehouse grant ${login}\``, "m"))
  })
})
