/**
 * Benchmark: a generated store served by the simulator (its own process), an empty database on the
 * embedded PostgreSQL, and the real CLI (its own process, measured with /usr/bin/time) doing a full
 * backfill, the first sync (backfill leaves the incremental cursors alone, so it reads everything once
 * more), then a no-change sync. Prints a table and writes bench/results/latest.json.
 *
 *   npm run bench                      # 100,000 orders
 *   npm run bench -- --orders 300000
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { defaultDataDir, embeddedPostgres } from "../src/warehouse/embedded.js"

const root = path.resolve(fileURLToPath(new URL("..", import.meta.url)))
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const orders = arg("orders", 100_000)
const customers = arg("customers", Math.round(orders / 5))
const products = arg("products", 2_000)

const cli = (args: ReadonlyArray<string>) => [process.execPath, "--import", "tsx", path.join(root, "src/bin/shopsync.ts"), ...args]

const startSimulator = () =>
  new Promise<{ url: string; stop: () => void }>((resolve, reject) => {
    const [cmd, ...args] = cli(["simulate", "store", "--orders", String(orders), "--customers", String(customers), "--products", String(products)])
    const child = spawn(cmd!, args, { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.on("data", (d) => {
      out += String(d)
      const m = /STORE_API_URL=(\S+)/.exec(out)
      if (m) resolve({ url: m[1]!, stop: () => child.kill("SIGTERM") })
    })
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}`)))
  })

interface Measured {
  readonly seconds: number
  readonly peakRssMb: number
  readonly stdout: string
}

/** Runs the CLI under /usr/bin/time: wall seconds and peak RSS of exactly that process. */
const measure = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<Measured>((resolve, reject) => {
    const child = spawn("/usr/bin/time", ["-f", "TIME %e %M", ...cli(args)], {
      cwd: root,
      env: { ...process.env, SHOPSYNC_CONFIG: "/dev/null", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += String(d)))
    child.stderr.on("data", (d) => (stderr += String(d)))
    child.on("close", (code) => {
      const m = /TIME ([\d.]+) (\d+)/.exec(stderr)
      if (code !== 0 || !m) return reject(new Error(`shopsync ${args.join(" ")} failed (${code}):\n${stderr.slice(-2000)}`))
      resolve({ seconds: Number(m[1]), peakRssMb: Number(m[2]) / 1024, stdout })
    })
  })

const rowsOf = (stdout: string) => Number(/run \d+: (\d+) rows/.exec(stdout)?.[1] ?? NaN)
const requestsOf = (stdout: string) => Number(/(\d+) requests in/.exec(stdout)?.[1] ?? NaN)

const main = async () => {
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(
    embeddedPostgres({ dataDir: defaultDataDir("bench-postgres"), port: 54339 }).pipe(Scope.extend(scope))
  )
  const admin = `postgres://${server.user}:${server.password}@127.0.0.1:${server.port}/postgres`
  const db = `bench_${Date.now()}`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  await client.query(`CREATE DATABASE ${db}`)
  const sim = await startSimulator()
  try {
    const env = {
      DATABASE_URL: admin.replace(/\/postgres$/, `/${db}`),
      STORE_API_URL: sim.url,
      STORE_CONSUMER_KEY: "ck_demo",
      STORE_CONSUMER_SECRET: "cs_demo",
      STORE_ID: "bench",
      STORE_SETTLE_SECONDS: "0"
    }
    await measure(["migrate"], env)
    const backfill = await measure(["backfill", "--since", "2022-01-01"], env)
    const firstSync = await measure(["sync", "--no-push"], env)
    const noChange = await measure(["sync", "--no-push"], env)
    const result = {
      machine: { cores: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30) },
      store: { orders, customers, products },
      backfill: {
        seconds: backfill.seconds,
        rows: rowsOf(backfill.stdout),
        rowsPerSecond: Math.round(rowsOf(backfill.stdout) / backfill.seconds),
        requests: requestsOf(backfill.stdout),
        peakRssMb: Math.round(backfill.peakRssMb)
      },
      firstSync: {
        seconds: firstSync.seconds,
        rows: rowsOf(firstSync.stdout),
        rowsPerSecond: Math.round(rowsOf(firstSync.stdout) / firstSync.seconds),
        requests: requestsOf(firstSync.stdout),
        peakRssMb: Math.round(firstSync.peakRssMb)
      },
      noChangeSync: { seconds: noChange.seconds, requests: requestsOf(noChange.stdout), peakRssMb: Math.round(noChange.peakRssMb) }
    }
    console.log(`\nshopsync benchmark: ${orders} orders, ${customers} customers, ${products} products; ${result.machine.cores} cores, ${result.machine.memoryGb} GiB`)
    console.table({
      backfill: { "wall s": backfill.seconds, rows: result.backfill.rows, "rows/s": result.backfill.rowsPerSecond, requests: result.backfill.requests, "peak RSS MB": result.backfill.peakRssMb },
      "first sync": { "wall s": firstSync.seconds, rows: result.firstSync.rows, "rows/s": result.firstSync.rowsPerSecond, requests: result.firstSync.requests, "peak RSS MB": result.firstSync.peakRssMb },
      "no-change sync": { "wall s": noChange.seconds, rows: rowsOf(noChange.stdout), "rows/s": "", requests: result.noChangeSync.requests, "peak RSS MB": result.noChangeSync.peakRssMb }
    })
    fs.mkdirSync(path.join(root, "bench/results"), { recursive: true })
    fs.writeFileSync(path.join(root, "bench/results/latest.json"), `${JSON.stringify(result, null, 2)}\n`)
  } finally {
    sim.stop()
    await client.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)
    await client.end()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e)
  process.exitCode = 1
})
