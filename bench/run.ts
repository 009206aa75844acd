/**
 * Benchmark (issue 5): the pipeline against its physical limits, on a generated store served by the
 * simulator (its own process) and an empty warehouse on the embedded PostgreSQL. Every measured program
 * runs in its own process under /usr/bin/time (wall seconds, peak RSS): the compiled CLI (dist/, what
 * `npm run shopsync` runs) and the two limit programs (bench/source.ts, bench/sink.ts, compiled too).
 *
 *   1. source limit: every page of the streams fetched and parsed, STORE_CONCURRENCY at a time, discarded;
 *   2. pipeline: `backfill` end to end, then a first `sync` (backfill leaves the cursors alone, so it reads
 *      everything again, checkpointing), then no-change syncs (the sales streams; incremental streams only);
 *      the store's other resources (notes, reviews, settings, …) are not part of this store's figures;
 *   3. sink limit: the rows the pipeline wrote, dumped, then loaded into empty tables with COPY … FROM STDIN
 *      over as many connections;
 *   4. the daily net sales views, timed on the pipeline's warehouse;
 *   5. the same backfill against a store answering every request after 250 ms, at concurrency 1, 2, 4, 8;
 *   6. the backfill of a store three times bigger (growth of time and memory), and ten times with --growth-million;
 *   7. CPU per document and the combined limit (bench/cpu.ts);
 *   8. freshness with `shopsync serve`: webhooks, a delivery burst, the scheduled sync alone (bench/freshness.ts);
 *   9. the store client's pace (bench/rate.ts): a rate-limited store, and one that slows past 4 requests in flight;
 *  10. stores kept current per hour by 1, 2 and 3 `shopsync worker` processes on this server (bench/workers.ts);
 *  10b. a thousand stores, each every 5 minutes, on 3 workers: late stores and CPU per sync (bench/thousand-stores.ts,
 *       about 35 minutes; --skip-thousand-stores);
 *  11. requests a first and a no-change sync cost a real WooCommerce (bench/real-shop.ts; --skip-real-shop);
 *  and, only with --only real-shop-exact, issue 19's exactness on the real shop (bench/real-shop-exact.ts).
 * Prints the figures, the ratios and the targets, and writes bench/results/latest.json.
 *
 *   npm run bench                        # 100,000 orders, 300,000 for growth (about half an hour)
 *   npm run bench -- --quick             # a small store: checks the benchmark itself in about a minute
 *   npm run bench -- --orders N --concurrency C --latency-orders N --growth-orders N --skip-latency --skip-growth --skip-freshness
 *                                        --rate-orders N --skip-rate --workers-stores N --workers-window SECONDS --skip-workers
 *                                        --skip-thousand-stores
 *                                        --skip-real-shop
 *   npm run bench -- --only workers      # one phase alone (with --quick too), merged into bench/results/latest.json
 *   npm run bench -- --only thousand-stores   # 1,000 stores on 3 workers (--quick: 20 stores every 30 s)
 *   npm run bench -- --only real-shop    # the real WooCommerce phase alone
 *   npm run bench -- --only real-shop-exact [--first-syncs N]   # N first syncs per storage (default 5), compared with the shop
 *   npm run bench -- --growth-million    # growth to 10 × orders too (1,000,000 orders: hours)
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { buildCli } from "../bin/build.mjs"
import { defaultDataDir, embeddedPostgres } from "../src/warehouse/embedded.js"
import { copyToFile, tableColumns } from "./copy.js"
import { cpuFigures, cpuLimits, cpuTargetRows, type GrowthRun } from "./cpu.js"
import { freshness, reportFreshness } from "./freshness.js"
import { rateBench, reportRate } from "./rate.js"
import { realShopBench, reportRealShop } from "./real-shop.js"
import { type Cli, realShopExactBench, reportRealShopExact } from "./real-shop-exact.js"
import type { Rows } from "../test/support/net-sales.js"
import { startSimulator as startStoreProcess } from "./simulator.js"
import { reportThousandStores, thousandStoresBench } from "./thousand-stores.js"
import { workersBench } from "./workers.js"
import { reportWorkers } from "./workers-report.js"

const root = path.resolve(fileURLToPath(new URL("..", import.meta.url)))
const flag = (name: string) => process.argv.includes(`--${name}`)
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const quick = flag("quick")
const optionalArg = (name: string) => (process.argv.includes(`--${name}`) ? arg(name, NaN) : undefined)
/** The phases that run alone with --only. */
const PHASES = ["workers", "thousand-stores", "real-shop", "real-shop-exact"]
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined
const orders = arg("orders", quick ? 3_000 : 100_000)
const products = arg("products", quick ? 60 : 2_000)
const concurrency = arg("concurrency", 4)
const latencyOrders = arg("latency-orders", quick ? 1_000 : orders)
const growthOrders = arg("growth-orders", orders * 3)
const growthSizes = flag("skip-growth") ? [] : [growthOrders, ...(flag("growth-million") ? [orders * 10] : [])]
const LATENCY_CONCURRENCY = [1, 2, 4, 8]
/** A no-change sync of orders, refunds, products and reports: the clock, then per listing one walk request and one count. */
const INCREMENTAL_REQUESTS = 1 + 2 * 2 + 2 + 2 * 2
const build = path.join(root, ".shopsync/bench-build")
const dumpDir = path.join(root, ".shopsync/bench-dump")

const tsc = (args: ReadonlyArray<string>) => {
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), ...args], { cwd: root, encoding: "utf8" })
  // Type errors still emit JavaScript; say so, the figures are still those of the code as it is.
  if (r.status !== 0) console.error(`tsc ${args.join(" ")}: exit ${r.status}\n${r.stdout.slice(0, 2000)}`)
}

/** CPU seconds, per process, spent during one measured step: where the wall time goes on a few cores. */
interface Cpu {
  readonly program: number
  readonly postgres: number
  readonly simulator: number
}

interface Measured {
  readonly seconds: number
  readonly peakRssMb: number
  readonly cpu: Cpu
  readonly stdout: string
}

const ticksPerSecond = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100

/** CPU seconds so far of a process and the children it waited for (PostgreSQL's backends): /proc/<pid>/stat. */
const cpuSeconds = (pid: number | undefined) => {
  if (pid === undefined) return 0
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / ticksPerSecond
}

/** The processes a step's CPU is counted in besides its own: the PostgreSQL server and the simulator it reads. */
interface Watched {
  readonly postgres: number
  readonly simulator?: number | undefined
}

/** Runs a program under /usr/bin/time: wall seconds, peak RSS and CPU of exactly that process, and the CPU the server and simulator spent meanwhile. */
const measure = (command: ReadonlyArray<string>, watched: Watched, env: Record<string, string> = {}) =>
  new Promise<Measured>((resolve, reject) => {
    const before = { postgres: cpuSeconds(watched.postgres), simulator: cpuSeconds(watched.simulator) }
    const child = spawn("/usr/bin/time", ["-f", "TIME %e %M %U %S", ...command], {
      cwd: root,
      env: { ...process.env, SHOPSYNC_CONFIG: "/dev/null", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += String(d)))
    child.stderr.on("data", (d) => (stderr += String(d)))
    child.on("close", (code) => {
      const m = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(stderr)
      if (code !== 0 || !m) return reject(new Error(`${command.join(" ")} failed (${code}):\n${stderr.slice(-2000)}`))
      const cpu = {
        program: Number((Number(m[3]) + Number(m[4])).toFixed(1)),
        postgres: Number((cpuSeconds(watched.postgres) - before.postgres).toFixed(1)),
        simulator: Number((cpuSeconds(watched.simulator) - before.simulator).toFixed(1))
      }
      resolve({ seconds: Number(m[1]), peakRssMb: Math.round(Number(m[2]) / 1024), cpu, stdout })
    })
  })

const shopsync = (args: ReadonlyArray<string>) => [process.execPath, path.join(root, "dist/bin/shopsync.js"), ...args]

/** The CLI against `databaseUrl`, answering its wall seconds and exit code (the caller judges it), its output's tails kept. */
const cliOn = (databaseUrl: string): Cli => (args, env) =>
  new Promise((resolve) => {
    const started = performance.now()
    const [node, ...rest] = shopsync(args)
    const child = spawn(node!, rest, { cwd: root, env: { ...process.env, SHOPSYNC_CONFIG: "/dev/null", DATABASE_URL: databaseUrl, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let [stdout, stderr] = ["", ""]
    child.stdout.on("data", (d) => (stdout = (stdout + String(d)).slice(-4000)))
    child.stderr.on("data", (d) => (stderr = (stderr + String(d)).slice(-4000)))
    child.on("close", (code) => resolve({ seconds: (performance.now() - started) / 1000, code: code ?? -1, stdout, stderr }))
  })

const startSimulator = (storeOrders: number, faults?: string) =>
  startStoreProcess(root, { orders: storeOrders, products, extra: faults ? ["--faults", faults] : [] })

interface Run {
  readonly seconds: number
  readonly rows: number
  readonly rowsPerSecond: number
  readonly requests: number
  /** The run's own time (after start-up), from its summary. */
  readonly runSeconds: number
  readonly peakRssMb: number
  readonly cpu: Cpu
}

const summaryOf = (m: Measured): Run => {
  const s = /run \d+: (\d+) rows, (\d+) requests in ([\d.]+) s/.exec(m.stdout)
  const rows = Number(s?.[1] ?? NaN)
  return {
    seconds: m.seconds,
    rows,
    rowsPerSecond: Math.round(rows / m.seconds),
    requests: Number(s?.[2] ?? NaN),
    runSeconds: Number(s?.[3] ?? NaN),
    peakRssMb: m.peakRssMb,
    cpu: m.cpu
  }
}

const resultFile = path.join(root, "bench/results/latest.json")

/** Writes the figures; a phase run alone replaces its own key in the last full run's figures and keeps the rest. */
const saveResult = (result: Record<string, unknown>, merge: boolean) => {
  const previous = merge && fs.existsSync(resultFile) ? (JSON.parse(fs.readFileSync(resultFile, "utf8")) as Record<string, unknown>) : {}
  fs.mkdirSync(path.dirname(resultFile), { recursive: true })
  fs.writeFileSync(resultFile, `${JSON.stringify({ ...previous, ...result }, null, 2)}\n`)
}

const main = async () => {
  if (only !== undefined && !PHASES.includes(only)) throw new Error(`--only takes one of ${PHASES.join(", ")}, got ${only}`)
  console.error("bundling dist/ and compiling the limit programs")
  await buildCli()
  if (only === undefined) tsc(["bench/source.ts", "bench/sink.ts", "--outDir", build, "--rootDir", "bench", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--strict", "--skipLibCheck", "--esModuleInterop", "--types", "node"])

  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(embeddedPostgres({ dataDir: defaultDataDir("bench-postgres"), port: 25433 }).pipe(Scope.extend(scope)))
  const admin = `postgres://${server.user}:${server.password}@127.0.0.1:${server.port}/postgres`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  const postgres = Number(fs.readFileSync(path.join(server.dataDir, "postmaster.pid"), "utf8").split("\n")[0])
  const databases: string[] = []
  const freshDatabase = async (label: string) => {
    const name = `bench_${label}_${Date.now()}`
    await client.query(`CREATE DATABASE ${name}`)
    databases.push(name)
    const url = admin.replace(/\/postgres$/, `/${name}`)
    await measure(shopsync(["migrate"]), { postgres }, { DATABASE_URL: url })
    return url
  }
  const cleanup = async () => {
    for (const name of databases) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await client.end()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
  const runWorkers = () => workersBench({ root, quick, postgres, freshDatabase, stores: optionalArg("workers-stores"), windowSeconds: optionalArg("workers-window") })
  const runThousandStores = () => thousandStoresBench({ root, quick, postgres, freshDatabase })
  /** The real shop's phase: a first sync with every stream and a no-change one, each into the same fresh warehouse. */
  const runRealShop = async () => {
    const url = await freshDatabase("real_shop")
    return withDb(url, (c) =>
      realShopBench(async (storeEnv) => {
        // measure rejects with the command's stderr when it fails.
        const m = await measure(shopsync(["sync", "--no-push"]), { postgres }, { DATABASE_URL: url, ...storeEnv })
        return m.seconds
      }, rowsOf(c), (storeEnv) => async (streams, env = {}) => {
        const m = await measure(shopsync(["backfill", "--since", "2000-01-01", "--streams", streams]), { postgres }, { DATABASE_URL: url, ...storeEnv, ...env })
        return { stdout: m.stdout, cpu: { cli: m.cpu.program, postgres: m.cpu.postgres } }
      }))
  }
  /** Issue 19's figures on the real shop: first syncs, days exact after changes, a no-change sync, a reconciliation. */
  const runRealShopExact = async () => {
    const url = await freshDatabase("real_shop_exact")
    return withDb(url, (c) => realShopExactBench(cliOn(url), rowsOf(c), optionalArg("first-syncs") ?? 5))
  }
  /** A phase alone (--only): its figures printed and merged into the last full run's, the warehouse cleaned up after. */
  const runAlone = async <A>(key: string, run: () => Promise<A>, report: (figures: A) => void) => {
    try {
      const figures = await run()
      report(figures)
      saveResult({ [key]: figures }, true)
    } finally {
      await cleanup()
    }
  }
  if (only === "real-shop") return runAlone("realShop", runRealShop, reportRealShop)
  if (only === "real-shop-exact") return runAlone("realShopExact", runRealShopExact, reportRealShopExact)
  if (only === "workers") return runAlone("workers", runWorkers, reportWorkers)
  if (only === "thousand-stores") return runAlone("thousandStores", runThousandStores, reportThousandStores)

  console.error(`starting simulators: ${orders} orders; ${latencyOrders} with 250 ms latency`)
  const [sim, slowSim] = await Promise.all([
    startSimulator(orders),
    flag("skip-latency") ? undefined : startSimulator(latencyOrders, "latency:250ms")
  ])
  const env = (url: string, apiUrl: string, storeConcurrency = concurrency) => ({
    DATABASE_URL: url,
    STORE_API_URL: apiUrl,
    STORE_CONSUMER_KEY: "ck_demo",
    STORE_CONSUMER_SECRET: "cs_demo",
    STORE_ID: "bench",
    STORE_SETTLE_SECONDS: "0",
    STORE_CONCURRENCY: String(storeConcurrency)
  })
  const backfill = ["backfill", "--since", "2000-01-01"]
  // What this benchmark's store is made of (the backfill's default too); not the other resource streams.
  const sales = ["--streams", "orders,refunds,products,customers,reports"]
  try {
    console.error("source limit")
    const onSim = { postgres, simulator: sim.pid }
    const sourceRun = await measure([process.execPath, path.join(build, "source.js"), sim.url, String(concurrency)], onSim)
    const source = JSON.parse(sourceRun.stdout) as { documents: number; requests: number; seconds: number }

    console.error("pipeline: backfill, first sync, no-change syncs")
    const db = await freshDatabase("pipeline")
    const pipeline = summaryOf(await measure(shopsync(backfill), onSim, env(db, sim.url)))
    const firstSync = summaryOf(await measure(shopsync(["sync", "--no-push", ...sales]), onSim, env(db, sim.url)))
    const noChange = summaryOf(await measure(shopsync(["sync", "--no-push", ...sales]), onSim, env(db, sim.url)))
    const incremental = summaryOf(await measure(shopsync(["sync", "--no-push", "--streams", "orders,refunds,products,reports"]), onSim, env(db, sim.url)))
    // A plain `sync` with the defaults, as cron runs it: every stream, the other resources and the children passes
    // the first time, then only what is due.
    console.error("plain sync with defaults: first, then no change")
    const plainFirst = summaryOf(await measure(shopsync(["sync", "--no-push"]), onSim, env(db, sim.url)))
    const plainNoChange = summaryOf(await measure(shopsync(["sync", "--no-push"]), onSim, env(db, sim.url)))
    console.error("verify: the store's ids and dates against the warehouse's")
    const verify = await measure(shopsync(["verify"]), onSim, env(db, sim.url))

    console.error("daily net sales views")
    const views = await timeViews(db)

    console.error("sink limit: dump, then COPY into empty tables")
    const dump = await dumpTables(db)
    const sinkDb = await freshDatabase("sink")
    const sinkRun = await measure([process.execPath, path.join(build, "sink.js"), sinkDb, dumpDir, String(concurrency)], { postgres })
    const sink = JSON.parse(sinkRun.stdout) as { rows: number; seconds: number }
    fs.rmSync(dumpDir, { recursive: true, force: true })

    const latency: Array<Run & { concurrency: number }> = []
    if (slowSim) {
      for (const c of LATENCY_CONCURRENCY) {
        console.error(`250 ms latency, concurrency ${c}`)
        const url = await freshDatabase(`latency${c}`)
        const fixed = { ...env(url, slowSim.url, c), STORE_CONCURRENCY_MODE: "fixed" }
        latency.push({ concurrency: c, ...summaryOf(await measure(shopsync(backfill), { postgres, simulator: slowSim.pid }, fixed)) })
      }
    }
    const rate = flag("skip-rate") ? undefined : await rateBench({ root, quick, orders: arg("rate-orders", quick ? 2_000 : 10_000), products, freshDatabase })
    const growth: Array<Run & GrowthRun> = []
    for (const size of growthSizes) {
      console.error(`growth: backfill of ${size} orders`)
      // One big store at a time: a million orders' simulator alone takes gigabytes.
      const bigSim = await startSimulator(size)
      try {
        const url = await freshDatabase(`growth${size}`)
        const run = summaryOf(await measure(shopsync(backfill), { postgres, simulator: bigSim.pid }, env(url, bigSim.url)))
        const verified = await measure(shopsync(["verify"]), { postgres, simulator: bigSim.pid }, env(url, bigSim.url))
        const growthOf = (peak: number, base: number) => Math.round(((peak - base) / base) * 100)
        growth.push({
          orders: size, ...run, timeRatio: Number((run.seconds / pipeline.seconds).toFixed(2)), rssGrowthPercent: growthOf(run.peakRssMb, pipeline.peakRssMb),
          verify: { seconds: verified.seconds, peakRssMb: verified.peakRssMb, rssGrowthPercent: growthOf(verified.peakRssMb, verify.peakRssMb), cpu: verified.cpu }
        })
      } finally {
        bigSim.stop()
      }
    }
    const fresh = flag("skip-freshness") ? undefined : await freshness({ quick, shopsync, startSimulator, freshDatabase, env })
    const workers = flag("skip-workers") ? undefined : await runWorkers()
    const thousandStores = flag("skip-thousand-stores") ? undefined : await runThousandStores()
    console.error("real shop: a first sync and a no-change one, counted by the shop")
    const realShop = flag("skip-real-shop") ? undefined : await runRealShop()

    const limit = Math.max(source.seconds, sink.seconds)
    const speedup = (c: number) => {
      const one = latency.find((l) => l.concurrency === 1)
      const other = latency.find((l) => l.concurrency === c)
      return one && other ? Number((one.seconds / other.seconds).toFixed(2)) : undefined
    }
    const result = {
      machine: { cores: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
      store: { orders, customers: Math.round(orders / 5), products },
      concurrency,
      sourceLimit: {
        seconds: Number(source.seconds.toFixed(2)),
        documents: source.documents,
        documentsPerSecond: Math.round(source.documents / source.seconds),
        requests: source.requests,
        peakRssMb: sourceRun.peakRssMb,
        cpu: sourceRun.cpu
      },
      sinkLimit: {
        seconds: Number(sink.seconds.toFixed(2)),
        documents: dump.documents,
        documentsPerSecond: Math.round(dump.documents / sink.seconds),
        tableRows: sink.rows,
        peakRssMb: sinkRun.peakRssMb,
        cpu: sinkRun.cpu
      },
      backfill: pipeline,
      firstSync,
      noChangeSync: noChange,
      noChangeIncrementalSync: incremental,
      plainFirstSync: plainFirst,
      plainNoChangeSync: plainNoChange,
      verify: { seconds: verify.seconds, peakRssMb: verify.peakRssMb, cpu: verify.cpu },
      views,
      rate,
      latency250ms: latency.map((l) => ({ ...l, speedupOverConcurrency1: speedup(l.concurrency) })),
      growth,
      cpu: cpuFigures(sourceRun, sinkRun, pipeline, dump.documents, os.cpus().length),
      ratios: {
        pipelineOverLimit: Number((pipeline.seconds / limit).toFixed(2)),
        limitedBy: source.seconds >= sink.seconds ? "source" : "sink",
        latencyConcurrency4OverConcurrency1: speedup(4)
      },
      freshness: fresh,
      workers,
      thousandStores,
      realShop
    }
    report(result)
    if (fresh) reportFreshness(fresh)
    if (rate) reportRate(rate)
    if (workers) reportWorkers(workers)
    if (thousandStores) reportThousandStores(thousandStores)
    if (!flag("skip-real-shop")) reportRealShop(realShop)
    saveResult(result, false)
  } finally {
    for (const s of [sim, slowSim]) s?.stop()
    await cleanup()
  }

  /** A query function on a connected client, as the real-shop phases compare the warehouse with the shop. */
  function rowsOf(c: pg.Client): Rows {
    return async <T,>(text: string, params: unknown[] = []) => (await c.query(text, params)).rows as T[]
  }

  async function withDb<A>(url: string, f: (c: pg.Client) => Promise<A>) {
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    try {
      return await f(c)
    } finally {
      await c.end()
    }
  }

  /** Each store table as COPY text (not timed), with its row count; documents = rows of the API's objects. */
  async function dumpTables(url: string) {
    fs.rmSync(dumpDir, { recursive: true, force: true })
    fs.mkdirSync(dumpDir, { recursive: true })
    return withDb(url, async (c) => {
      const tables = []
      for (const { table, columns } of await tableColumns(c)) {
        await copyToFile(c, `COPY store.${table} (${columns}) TO STDOUT`, path.join(dumpDir, `${table}.copy`))
        const [{ n }] = (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM store.${table}`)).rows as [{ n: number }]
        tables.push({ table, columns, rows: n })
      }
      fs.writeFileSync(path.join(dumpDir, "tables.json"), JSON.stringify(tables))
      const documents = tables.filter((t) => ["orders", "refunds", "customers", "products", "product_variations"].includes(t.table)).reduce((n, t) => n + t.rows, 0)
      return { documents }
    })
  }

  /** Best of five, as a consumer would query them: one store, every day. */
  async function timeViews(url: string) {
    return withDb(url, async (c) => {
      const timed: Record<string, number> = {}
      for (const view of ["daily_net_sales", "daily_sales"]) {
        let best = Number.POSITIVE_INFINITY
        for (let i = 0; i < 5; i++) {
          const t0 = performance.now()
          await c.query(`SELECT * FROM analytics.${view} WHERE store_id = $1`, ["bench"])
          best = Math.min(best, performance.now() - t0)
        }
        timed[`${view}Ms`] = Number(best.toFixed(1))
      }
      return timed
    })
  }
}

type Result = {
  machine: { cores: number; memoryGb: number }
  store: { orders: number; customers: number; products: number }
  concurrency: number
  sourceLimit: { seconds: number; documents: number; documentsPerSecond: number; peakRssMb: number; cpu: Cpu }
  sinkLimit: { seconds: number; documents: number; documentsPerSecond: number; peakRssMb: number; cpu: Cpu }
  backfill: Run
  firstSync: Run
  noChangeSync: Run
  noChangeIncrementalSync: Run
  plainFirstSync: Run
  plainNoChangeSync: Run
  verify: { seconds: number; peakRssMb: number; cpu: Cpu }
  views: Record<string, number>
  latency250ms: ReadonlyArray<Run & { concurrency: number; speedupOverConcurrency1: number | undefined }>
  growth: ReadonlyArray<Run & GrowthRun>
  cpu: ReturnType<typeof cpuFigures>
  ratios: { pipelineOverLimit: number; limitedBy: string; latencyConcurrency4OverConcurrency1: number | undefined }
}

const report = (r: Result) => {
  const row = (run: { seconds: number; peakRssMb: number; cpu: Cpu }, docs: number, extra: Record<string, unknown> = {}) => ({
    "wall s": run.seconds,
    documents: docs,
    "docs/s": Math.round(docs / run.seconds),
    "peak RSS MB": run.peakRssMb,
    "CPU s program/pg/sim": `${run.cpu.program}/${run.cpu.postgres}/${run.cpu.simulator}`,
    // Of all the machine's cores over the wall time: near 100%, the step is CPU-bound.
    "cores busy %": Math.round(((run.cpu.program + run.cpu.postgres + run.cpu.simulator) / (run.seconds * r.machine.cores)) * 100),
    ...extra
  })
  console.log(`\nshopsync benchmark: ${r.store.orders} orders, ${r.store.customers} customers, ${r.store.products} products; ` +
    `STORE_CONCURRENCY ${r.concurrency}; ${r.machine.cores} cores, ${r.machine.memoryGb} GiB`)
  console.table({
    "source limit": row(r.sourceLimit, r.sourceLimit.documents),
    "sink limit (COPY)": row(r.sinkLimit, r.sinkLimit.documents),
    "backfill": row(r.backfill, r.backfill.rows, { requests: r.backfill.requests }),
    "first sync": row(r.firstSync, r.firstSync.rows, { requests: r.firstSync.requests }),
    "no-change sync": row(r.noChangeSync, r.noChangeSync.rows, { requests: r.noChangeSync.requests, "run s": r.noChangeSync.runSeconds }),
    "no-change, incremental streams": row(r.noChangeIncrementalSync, 0, { requests: r.noChangeIncrementalSync.requests, "run s": r.noChangeIncrementalSync.runSeconds }),
    "plain sync, all streams after the sales": row(r.plainFirstSync, r.plainFirstSync.rows, { requests: r.plainFirstSync.requests, "run s": r.plainFirstSync.runSeconds }),
    "plain sync, no change": row(r.plainNoChangeSync, r.plainNoChangeSync.rows, { requests: r.plainNoChangeSync.requests, "run s": r.plainNoChangeSync.runSeconds }),
    "verify (ids and dates, both sides)": row(r.verify, 0),
    ...Object.fromEntries(r.growth.flatMap((g) => [[`backfill, ${g.orders} orders`, row(g, g.rows, { requests: g.requests })], [`verify, ${g.orders} orders`, row(g.verify, 0)]]))
  })
  if (r.latency250ms.length > 0) {
    console.log("backfill with 250 ms per request")
    console.table(Object.fromEntries(r.latency250ms.map((l) => [`concurrency ${l.concurrency}`, row(l, l.rows, { requests: l.requests, "speed-up": l.speedupOverConcurrency1 })])))
  }
  const verdict = (ok: boolean | undefined) => (ok === undefined ? "not measured" : ok ? "met" : "NOT met")
  console.log("targets")
  console.table({
    "backfill ≤ 1.25 × max(source, sink)": { value: `${r.ratios.pipelineOverLimit} × (${r.ratios.limitedBy}-bound)`, target: verdict(r.ratios.pipelineOverLimit <= 1.25) },
    "peak RSS < 300 MB": { value: `${Math.max(r.backfill.peakRssMb, r.firstSync.peakRssMb)} MB`, target: verdict(Math.max(r.backfill.peakRssMb, r.firstSync.peakRssMb) < 300) },
    "verify: peak RSS < 300 MB": { value: `${r.verify.peakRssMb} MB`, target: verdict(r.verify.peakRssMb < 300) },
    "children passes (plain sync after the backfill): peak RSS < 300 MB": { value: `${r.plainFirstSync.peakRssMb} MB, ${r.plainFirstSync.requests} requests`, target: verdict(r.plainFirstSync.peakRssMb < 300) },
    ...cpuTargetRows(r.cpu, r.machine.cores, r.growth),
    "250 ms latency: concurrency 4 ≥ 3.5 × concurrency 1": { value: `${r.ratios.latencyConcurrency4OverConcurrency1 ?? "-"} ×`, target: verdict(r.ratios.latencyConcurrency4OverConcurrency1 === undefined ? undefined : r.ratios.latencyConcurrency4OverConcurrency1 >= 3.5) },
    "no-change sync: O(1) requests per incremental stream": { value: `${r.noChangeIncrementalSync.requests} requests for orders, refunds, products, reports`, target: verdict(r.noChangeIncrementalSync.requests <= INCREMENTAL_REQUESTS) },
    "no-change plain sync (defaults) ≤ 10 requests": { value: `${r.plainNoChangeSync.requests} requests`, target: verdict(r.plainNoChangeSync.requests <= 10) },
    "no-change sync < 2 s after start-up": { value: `${r.noChangeSync.runSeconds} s (${r.noChangeSync.seconds} s with start-up)`, target: verdict(r.noChangeSync.runSeconds < 2) },
    "daily net sales views < 100 ms": { value: `${r.views.daily_net_salesMs} ms, daily_sales ${r.views.daily_salesMs} ms`, target: verdict((r.views.daily_net_salesMs ?? Infinity) < 100) }
  })
  console.log("what limits them")
  for (const line of cpuLimits(r.cpu)) console.log(`  ${line}`)
  // The last share of the notes' full pass was taken as the first plain sync began (its upper bound).
  const paced = Math.ceil((r.store.orders * r.plainFirstSync.seconds) / (FULL_PASS_HOURS * 3600))
  console.log(`  no-change plain sync: ${r.plainNoChangeSync.requests} requests, about ${paced} of them the order notes of the paced first ` +
    `pass: it reads every order's notes once in SHOPSYNC_CHILDREN_FULL_PASS_HOURS (${FULL_PASS_HOURS} h by default, ${r.store.orders} ` +
    `orders here), shared over the syncs by the time since the last share (${r.plainFirstSync.seconds} s); later passes read the orders ` +
    `modified in SHOPSYNC_CHILDREN_QUIET_DAYS, and every one once in as many days`)
}

/** SHOPSYNC_CHILDREN_FULL_PASS_HOURS's default, which the plain syncs run with. */
const FULL_PASS_HOURS = 24

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e)
  process.exitCode = 1
})
