/**
 * CPU per document of a backfill, on its own (issue 14): a generated store served by the simulator (its own
 * process), a fresh database on an embedded PostgreSQL with pg_stat_statements loaded, and the compiled CLI
 * (dist/, build it first) backfilling it. Prints the CPU seconds of the CLI and of PostgreSQL per 100,000
 * documents and the statements that cost PostgreSQL the most; `--prof DIR` writes the CLI's V8 CPU profile there.
 *
 *   npx tsx bench/cpu-run.ts --orders 20000 [--prof DIR] [--dist DIR] [--port 25460] [--keep] [--track-all]
 *   # --keep: leave the database; --track-all: count the statements that functions and triggers run too (their time
 *   # is also in the statement that ran them)
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { defaultDataDir, embeddedPostgres, type EmbeddedServer } from "../src/warehouse/embedded.js"
import { cpuSecondsOf, per100k } from "./cpu.js"
import { startSimulator as startStoreProcess } from "./simulator.js"

const root = path.resolve(fileURLToPath(new URL("..", import.meta.url)))
const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : undefined
}
const orders = Number(arg("orders") ?? 20_000)
const prof = arg("prof")
const port = Number(arg("port") ?? 25_460)
/** The compiled CLI to measure: this checkout's, or another's (`--dist`, to compare two versions on one store). */
const entry = path.join(path.resolve(arg("dist") ?? path.join(root, "dist")), "bin/shopsync.js")
const cli = (args: ReadonlyArray<string>) => [process.execPath, ...(prof ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(prof)] : []), entry, ...args]

/** Starts the server for the scope, pg_stat_statements preloaded (a restart the first time it is asked for). */
const startServer = async () => {
  const dataDir = defaultDataDir("bench-cpu")
  const open = async () => {
    const scope = Effect.runSync(Scope.make())
    const server = await Effect.runPromise(embeddedPostgres({ dataDir, port }).pipe(Scope.extend(scope)))
    return { scope, server }
  }
  let started = await open()
  const admin = adminUrl(started.server)
  const preloaded = await withClient(admin, async (c) => (await c.query("SHOW shared_preload_libraries")).rows[0].shared_preload_libraries as string)
  if (!preloaded.includes("pg_stat_statements")) {
    await withClient(admin, (c) => c.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"))
    await Effect.runPromise(Scope.close(started.scope, Exit.void))
    started = await open()
  }
  return started
}

const adminUrl = (s: EmbeddedServer, db = "postgres") => `postgres://${s.user}:${s.password}@127.0.0.1:${s.port}/${db}`

const withClient = async <A>(url: string, f: (c: pg.Client) => Promise<A>) => {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    return await f(c)
  } finally {
    await c.end()
  }
}

const run = (command: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ stdout: string; cpu: number; peakRssMb: number }>((resolve, reject) => {
    const child = spawn("/usr/bin/time", ["-f", "TIME %U %S %M", ...command], { cwd: root, env: { ...process.env, SHOPSYNC_CONFIG: "/dev/null", ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += String(d)))
    child.stderr.on("data", (d) => (stderr += String(d)))
    child.on("close", (code) => {
      const m = /TIME ([\d.]+) ([\d.]+) (\d+)/.exec(stderr)
      if (code !== 0 || !m) return reject(new Error(`${command.join(" ")} failed (${code}):\n${stderr.slice(-2000)}`))
      resolve({ stdout, cpu: Number(m[1]) + Number(m[2]), peakRssMb: Math.round(Number(m[3]) / 1024) })
    })
  })

const startSimulator = () => startStoreProcess(root, { orders, products: Math.round(orders / 50) })

// Summed over the sessions: each has its own temp table, so the same statement is counted once per connection.
const TOP_STATEMENTS = `
  SELECT round(sum(total_exec_time)::numeric / 1000, 2) AS seconds, sum(calls)::int AS calls, sum(rows)::int AS rows,
         left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query
  FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
  GROUP BY 4 ORDER BY 1 DESC LIMIT 20`

const main = async () => {
  const { scope, server } = await startServer()
  const sim = await startSimulator()
  const name = `cpu_${Date.now()}`
  const postmaster = Number(fs.readFileSync(path.join(server.dataDir, "postmaster.pid"), "utf8").split("\n")[0])
  try {
    await withClient(adminUrl(server), (c) => c.query(`CREATE DATABASE ${name}`))
    const url = adminUrl(server, name)
    const env = {
      DATABASE_URL: url, STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo",
      STORE_ID: "bench", STORE_SETTLE_SECONDS: "0", STORE_CONCURRENCY: "4"
    }
    await run([process.execPath, entry, "migrate"], env)
    await withClient(url, async (c) => {
      await c.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
      if (process.argv.includes("--track-all")) await c.query(`ALTER DATABASE ${name} SET pg_stat_statements.track = 'all'`)
      await c.query("SELECT pg_stat_statements_reset()")
    })
    const pgBefore = cpuSecondsOf(postmaster)
    const backfill = await run(cli(["backfill", "--since", "2000-01-01"]), env)
    const pgCpu = cpuSecondsOf(postmaster) - pgBefore
    const documents = await withClient(url, async (c) =>
      Number((await c.query(`SELECT (SELECT count(*) FROM store.orders) + (SELECT count(*) FROM store.refunds) + (SELECT count(*) FROM store.customers)
        + (SELECT count(*) FROM store.products) + (SELECT count(*) FROM store.product_variations) AS n`)).rows[0].n))
    const top = await withClient(url, async (c) => (await c.query(TOP_STATEMENTS, [name])).rows)
    console.log(backfill.stdout.trim().split("\n").slice(-3).join("\n"))
    console.log(`${orders} orders, ${documents} documents: CLI ${backfill.cpu.toFixed(1)} CPU-s (${per100k(backfill.cpu, documents)} per 100k documents), ` +
      `PostgreSQL ${pgCpu.toFixed(1)} CPU-s (${per100k(pgCpu, documents)} per 100k documents); CLI peak RSS ${backfill.peakRssMb} MB`)
    console.table(top)
  } finally {
    sim.stop()
    if (!process.argv.includes("--keep")) await withClient(adminUrl(server), (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e)
  process.exitCode = 1
})
