import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Redacted } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { manualClock, startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { pgLayer } from "../../src/warehouse/database.js"
import EmbeddedPostgres from "../../src/warehouse/embedded-postgres.js"
import { migrate } from "../../src/warehouse/migrate.js"
import { runCli } from "../support/cli.js"
import { freshDatabase } from "../support/database.js"
import { freePort } from "../support/ports.js"
import { reachableTempDir } from "../support/data-root.js"



const query = async <T = Record<string, unknown>>(url: string | pg.ClientConfig, text: string): Promise<T[]> => {
  const client = new pg.Client(typeof url === "string" ? { connectionString: url } : url)
  client.setTypeParser(1082, (v) => v)
  await client.connect()
  try {
    return (await client.query(text)).rows as T[]
  } finally {
    await client.end()
  }
}

/** The error a statement fails with (SQLSTATE), or "ok". */
const refusal = (url: string, text: string) =>
  query(url, text).then(() => "ok", (e: { code?: string }) => e.code ?? String(e))

const credentialsOf = (dataRoot: string) => {
  const file = path.join(dataRoot, "postgres.credentials")
  return { file, mode: fs.statSync(file).mode & 0o777, ...JSON.parse(fs.readFileSync(file, "utf8")) as { superuserPassword: string; ownerPassword: string } }
}

const OWNERS = `SELECT
  (SELECT array_agg(DISTINCT pg_get_userbyid(relowner))::text[] FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN ('store', 'sync', 'marketing', 'analytics') OR c.relname LIKE 'shopsync_%') AS relations,
  (SELECT array_agg(DISTINCT pg_get_userbyid(proowner))::text[] FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname IN ('store', 'sync', 'marketing', 'analytics')) AS functions`

const DAILY = "SELECT store_id, day, currency, orders_count, gross_sales::text, refunds::text, net_sales::text FROM analytics.daily_net_sales ORDER BY 1, 2, 3"

describe("the warehouse for the people who query it", () => {
  let sim: StoreSimulator
  const roots: Array<string> = []
  const dataRoot = () => {
    const dir = reachableTempDir("shopsync-access-")
    roots.push(dir)
    return dir
  }
  beforeAll(async () => {
    sim = await startStoreSimulator({
      clock: manualClock(Date.parse("2026-09-01T00:00:00Z")),
      data: { seed: 11, orders: 150, start: "2026-07-01", days: 40 }
    })
  })
  afterAll(async () => {
    await sim.close()
    for (const dir of roots) {
      // A server a failed test left running.
      await runCli(["warehouse", "stop"], { SHOPSYNC_DATA_DIR: dir })
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("start, read-only login, owner without superuser, sync, backup, stop; restored into a fresh data directory with the same daily net sales", async () => {
    const first = dataRoot()
    const port = await freePort()
    const env = {
      SHOPSYNC_DATA_DIR: first, SHOPSYNC_PG_PORT: String(port),
      STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "access"
    }
    const started = await runCli(["warehouse", "start"], env)
    expect(started.code, started.stderr).toBe(0)
    expect(started.stdout).toContain(`started: embedded PostgreSQL on 127.0.0.1:${port}`)
    expect(started.stdout).toContain("shopsync warehouse grant")

    const status = await runCli(["warehouse", "status"], env)
    expect(status.stdout).toMatch(/server\s+running \(process \d+, started by `shopsync warehouse start`\)/)
    expect(status.stdout).toMatch(new RegExp(`port\\s+${port}\\n`))
    expect(status.stdout).toContain(path.join(first, "postgres"))
    expect(status.stdout).toMatch(/database shopsync\s+\d+ [kM]B/)

    // A command run meanwhile joins the server and leaves it running.
    const sync = await runCli(["sync", "--no-push", "--streams", "orders,refunds"], env)
    expect(sync.code, sync.stderr).toBe(0)
    expect(sync.stderr).toContain("(already running, joined)")

    // The owner role shopsync connects as: not superuser, no programs run through COPY.
    const ownerUrl = (await runCli(["warehouse", "url"], env)).stdout.trim()
    expect(ownerUrl).toMatch(new RegExp(`^postgres://shopsync:[^@]{40,}@127\\.0\\.0\\.1:${port}/shopsync$`))
    expect(await query(ownerUrl, "SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user"))
      .toEqual([{ rolsuper: false, rolcreaterole: false, rolcreatedb: false }])
    expect(await refusal(ownerUrl, "COPY (SELECT 1) TO PROGRAM 'id'")).toBe("42501")
    expect(await query(ownerUrl, "SELECT count(*)::int AS n FROM store.orders WHERE store_id = 'access'"))
      .toEqual([{ n: sim.state.orders.filter((o) => o.status !== "trash").length }])
    const daily = await query(ownerUrl, DAILY)
    expect(daily.length).toBeGreaterThan(20)

    // A read-only login, its password given on stdin.
    const granted = await runCli(["warehouse", "grant", "analyst", "--password-stdin"], env, "analyst-secret-from-stdin\n")
    expect(granted.code, granted.stderr).toBe(0)
    expect(granted.stdout).toContain("created login analyst: role shopsync_reader")
    const readerUrl = `postgres://analyst:analyst-secret-from-stdin@127.0.0.1:${port}/shopsync`
    expect(await query(readerUrl, DAILY)).toEqual(daily)
    expect(await refusal(readerUrl, "INSERT INTO store.orders (store_id) VALUES ('x')")).toBe("42501")
    expect(await refusal(readerUrl, "UPDATE store.orders SET total = 0")).toBe("42501")
    expect(await refusal(readerUrl, "DELETE FROM store.refunds")).toBe("42501")
    expect(await refusal(readerUrl, "CREATE TABLE analytics.mine (a int)")).toBe("42501")
    expect(await refusal(readerUrl, "CREATE TABLE store.mine (a int)")).toBe("42501")
    expect(await refusal(readerUrl, "CREATE TABLE public.mine (a int)")).toBe("42501")
    expect(await refusal(readerUrl, "SELECT * FROM sync.state")).toBe("42501")
    // A generated password for a new login, printed once in its URL.
    const generated = await runCli(["warehouse", "grant", "bi_tool"], env)
    const biUrl = generated.stdout.split("\n").find((l) => l.startsWith("postgres://bi_tool:"))!
    expect((await query(biUrl, "SELECT count(*)::int AS n FROM analytics.daily_net_sales"))[0]).toEqual({ n: daily.length })

    // The built-in SQL shell, fed on stdin.
    const shell = await runCli(["warehouse", "psql", "--builtin"], env,
      "SELECT count(*) AS days\n  FROM analytics.daily_net_sales;\nSELECT nonsense;\n\\d analytics.daily_net_sales\n")
    expect(shell.code, shell.stderr).toBe(0)
    expect(shell.stdout).toMatch(new RegExp(`days\\n-+\\n\\s*${daily.length}\\n\\(1 row\\)`))
    expect(shell.stdout).toContain("ERROR: column \"nonsense\" does not exist")
    expect(shell.stdout).toMatch(/net_sales\s+numeric/)

    const backupFile = path.join(first, "warehouse.backup")
    const backup = await runCli(["warehouse", "backup", backupFile], env)
    expect(backup.code, backup.stderr).toBe(0)
    expect(backup.stdout).toMatch(/backup written to .*: \d+ tables, \d+ rows/)
    expect(fs.statSync(backupFile).mode & 0o077).toBe(0)
    // A warehouse holding rows is not a restore's target.
    const refused = await runCli(["warehouse", "restore", backupFile], env)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("not fresh")
    expect(refused.stderr).toContain("SHOPSYNC_DATA_DIR")

    const stopped = await runCli(["warehouse", "stop"], env)
    expect(stopped.code, stopped.stderr).toBe(0)
    expect(stopped.stdout).toContain("stopped the embedded PostgreSQL")
    expect((await runCli(["warehouse", "status"], env)).stdout).toMatch(/server\s+not running/)
    expect(await refusal(ownerUrl, "SELECT 1")).toBe("ECONNREFUSED")

    // Restored into a fresh data directory: the same daily net sales, and passwords of its own.
    const second = dataRoot()
    const env2 = { SHOPSYNC_DATA_DIR: second, SHOPSYNC_PG_PORT: String(await freePort()) }
    const restored = await runCli(["warehouse", "restore", backupFile], env2)
    expect(restored.code, restored.stderr).toBe(0)
    expect(restored.stdout).toMatch(/restored .*: \d+ tables, \d+ rows/)
    const started2 = await runCli(["warehouse", "start"], env2)
    expect(started2.code, started2.stderr).toBe(0)
    const ownerUrl2 = (await runCli(["warehouse", "url"], env2)).stdout.trim()
    expect(await query(ownerUrl2, DAILY)).toEqual(daily)
    expect(await query(ownerUrl2, "SELECT count(*)::int AS n FROM analytics.daily_dirty")).toEqual([{ n: 0 }])
    // The next run id continues the restored sequence.
    expect(await query(ownerUrl2, "SELECT nextval('sync.runs_id_seq') > max(id) AS after FROM sync.runs")).toEqual([{ after: true }])
    expect((await runCli(["warehouse", "stop"], env2)).code).toBe(0)

    const [a, b] = [credentialsOf(first), credentialsOf(second)]
    expect([a.mode, b.mode]).toEqual([0o600, 0o600])
    const passwords = new Set([a.superuserPassword, a.ownerPassword, b.superuserPassword, b.ownerPassword])
    expect(passwords.size).toBe(4)
    for (const p of passwords) expect(p.length).toBeGreaterThanOrEqual(40)
  }, 240_000)

  it("a data directory an older shopsync created (a fixed superuser password, everything owned by it) gets random passwords and the owner role", async () => {
    const dir = dataRoot()
    // The server's OS user (as root: postgres) must reach the data directory inside this private temporary one.
    fs.chmodSync(dir, 0o711)
    const port = await freePort()
    const oldPassword = "a-password-fixed-in-an-old-release"
    const old = new EmbeddedPostgres({
      databaseDir: path.join(dir, "postgres"), port, user: "postgres", password: oldPassword, persistent: true,
      createPostgresUser: process.getuid?.() === 0, initdbFlags: ["--locale=C", "--encoding=UTF8", "--lc-messages=C"],
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="], onLog: () => {}, onError: () => {}
    })
    await old.initialise()
    await old.start()
    const superuser = (password: string, database: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`
    await query(superuser(oldPassword, "postgres"), "CREATE DATABASE shopsync")
    // What an older release did: migrate as the superuser, so it owns every object.
    await Effect.runPromise(migrate.pipe(Effect.provide(pgLayer(Redacted.make(superuser(oldPassword, "shopsync"))))))
    expect(await query(superuser(oldPassword, "shopsync"), OWNERS)).toEqual([{ relations: ["postgres"], functions: ["postgres"] }])
    await old.stop()

    const env = {
      SHOPSYNC_DATA_DIR: dir, SHOPSYNC_PG_PORT: String(port),
      STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "upgraded"
    }
    const upgraded = await runCli(["migrate"], env)
    expect(upgraded.code, upgraded.stderr).toBe(0)
    expect(upgraded.stderr).toContain("had no credentials file (made by an older shopsync): gave it random passwords")
    const credentials = credentialsOf(dir)
    expect(credentials.mode).toBe(0o600)

    expect((await runCli(["warehouse", "start"], env)).code).toBe(0)
    try {
      expect(await refusal(superuser(oldPassword, "postgres"), "SELECT 1")).toBe("28P01")
      const admin = superuser(credentials.superuserPassword, "shopsync")
      expect(await query(admin, `SELECT
          (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'shopsync') AS database,
          (SELECT array_agg(DISTINCT pg_get_userbyid(nspowner))::text[] FROM pg_namespace WHERE nspname IN ('store', 'sync', 'marketing', 'analytics')) AS schemas,
          (SELECT array_agg(DISTINCT pg_get_userbyid(relowner))::text[] FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname IN ('store', 'sync', 'marketing', 'analytics') OR c.relname LIKE 'shopsync_%') AS relations,
          (SELECT array_agg(DISTINCT pg_get_userbyid(proowner))::text[] FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname IN ('store', 'sync', 'marketing', 'analytics')) AS functions,
          (SELECT rolsuper FROM pg_roles WHERE rolname = 'shopsync') AS owner_is_superuser`))
        .toEqual([{ database: "shopsync", schemas: ["shopsync"], relations: ["shopsync"], functions: ["shopsync"], owner_is_superuser: false }])
      // The owner syncs into the tables, triggers and functions the superuser created.
      const sync = await runCli(["sync", "--no-push", "--streams", "orders,refunds"], env)
      expect(sync.code, sync.stderr).toBe(0)
      expect(await query(admin, "SELECT count(DISTINCT day)::int > 20 AS days FROM analytics.daily_net_sales WHERE store_id = 'upgraded'"))
        .toEqual([{ days: true }])
    } finally {
      await runCli(["warehouse", "stop"], env)
    }
  }, 180_000)

  it("with DATABASE_URL and a user who may not create roles: migrate says what a superuser should run, then grants the role once it exists", async () => {
    const dir = dataRoot()
    fs.chmodSync(dir, 0o711)
    const port = await freePort()
    // A server of its own: the shared test server already has the read-only role.
    const server = new EmbeddedPostgres({
      databaseDir: path.join(dir, "server"), port, user: "postgres", password: "test-superuser", persistent: true,
      createPostgresUser: process.getuid?.() === 0, initdbFlags: ["--locale=C", "--encoding=UTF8", "--lc-messages=C"],
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="], onLog: () => {}, onError: () => {}
    })
    await server.initialise()
    await server.start()
    try {
      const admin = `postgres://postgres:test-superuser@127.0.0.1:${port}/postgres`
      await query(admin, "CREATE ROLE app LOGIN PASSWORD 'app-password'")
      await query(admin, "CREATE DATABASE app_warehouse OWNER app")
      const env = { DATABASE_URL: `postgres://app:app-password@127.0.0.1:${port}/app_warehouse` }
      const first = await runCli(["migrate"], env)
      expect(first.code, first.stderr).toBe(0)
      expect(first.stdout).toContain("no read-only role: this user may not create shopsync_reader; have a superuser run CREATE ROLE shopsync_reader NOLOGIN;")
      expect(first.stderr).toContain("the read-only role shopsync_reader does not exist and this user may not create roles")
      const grant = await runCli(["warehouse", "grant", "analyst"], env)
      expect(grant.code).toBe(1)
      expect(grant.stderr).toContain("the role shopsync_reader does not exist")

      await query(admin, "CREATE ROLE shopsync_reader NOLOGIN")
      const second = await runCli(["migrate"], env)
      expect(second.code, second.stderr).toBe(0)
      expect(second.stdout).not.toContain("no read-only role")
      const warehouse = `postgres://postgres:test-superuser@127.0.0.1:${port}/app_warehouse`
      expect(await query(warehouse, "SELECT has_table_privilege('shopsync_reader', 'analytics.daily_net_sales', 'SELECT') AS reads"))
        .toEqual([{ reads: true }])
      // Granting it to a login takes CREATEROLE, which app has not: the error says what to run instead.
      const refused = await runCli(["warehouse", "grant", "analyst"], env)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain("have a superuser run: GRANT shopsync_reader TO analyst")
    } finally {
      await server.stop()
    }
  }, 120_000)

  it("backup and restore with DATABASE_URL: a synced database into an empty one, the same daily net sales", async () => {
    const [from, into] = [await freshDatabase(), await freshDatabase()]
    try {
      const store = { STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "elsewhere" }
      const sync = await runCli(["sync", "--no-push", "--streams", "orders,refunds"], { ...store, DATABASE_URL: from.url })
      expect(sync.code, sync.stderr).toBe(0)
      const file = path.join(dataRoot(), "elsewhere.backup")
      expect((await runCli(["warehouse", "backup", file], { DATABASE_URL: from.url })).code).toBe(0)
      const restored = await runCli(["warehouse", "restore", file], { DATABASE_URL: into.url })
      expect(restored.code, restored.stderr).toBe(0)
      const daily = await query(from.url, DAILY)
      expect(daily.length).toBeGreaterThan(20)
      expect(await query(into.url, DAILY)).toEqual(daily)
    } finally {
      await from.drop()
      await into.drop()
    }
  }, 120_000)
})
