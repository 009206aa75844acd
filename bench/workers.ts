/**
 * Stores kept current per hour by 1, 2 and 3 `shopsync worker` processes (issue 13), on one shared PostgreSQL (the
 * benchmark's embedded server), against a fleet of simulated stores in one process (bench/store-fleet.ts), each with its
 * own data and a new and a changed order every few seconds. The stores are registered with `stores add`, and once
 * warm, each asks for a sync every 5 s (the schedule's tick): more than the cluster can give, and what it gives is its
 * capacity.
 *
 * One worker backfills every store (its first sync: the warm-up), then the cluster is measured over a fixed window at
 * 1, 2 and 3 workers with fast stores (a worker joins between windows), then every request is slowed to 250 ms and it
 * is measured at 3, 2 and 1 workers (a worker leaves with SIGTERM between windows). Each window starts once the live
 * workers hold all 300 shards between them and a settling pause has passed.
 */
import { randomBytes } from "node:crypto"
import * as os from "node:os"
import { balanced, type Cpu, cpuNow, type Fleet, round, rows, runCli, sleep, startFleet, startWorker, waitUntil, type WorkerProcess, withFleet } from "./worker-processes.js"

export interface WorkersContext {
  readonly root: string
  readonly quick: boolean
  /** The PostgreSQL server's postmaster: its CPU and its backends' are counted. */
  readonly postgres: number
  /** A new, migrated warehouse database (dropped by the caller). */
  readonly freshDatabase: (label: string) => Promise<string>
  readonly stores?: number | undefined
  readonly windowSeconds?: number | undefined
}

export const WORKERS_DEFINITION =
  "A store is kept current at an interval when it gets a succeeded incremental sync (a `sync` run in sync.runs, every " +
  "stream, loading the orders created and changed since its last run) at least once per interval. Every store asks for " +
  "one every 5 s, more than the cluster can run; the succeeded runs finished in the window, per hour, are the stores the " +
  "cluster keeps current at a 1-hour interval (÷ 12: at 5 minutes). Measured after every store's first sync (its " +
  "backfill) and once the shards have settled."

const EVERY_SECONDS = 5
const CONCURRENCY = 2
const LATENCY_MS = 250
const CHANGE_MS = 5000

export interface Balance {
  readonly worker: string
  readonly shards: number | undefined
  readonly syncs: number
  /** Stores whose last run (sync.store_registry.runner) was on this worker. */
  readonly storesLastRunHere: number
}

export interface WorkersWindow {
  readonly setting: "fast" | "latency250ms"
  readonly workers: number
  readonly seconds: number
  readonly runs: number
  readonly failedRuns: number
  readonly storesSynced: number
  readonly storesPerHour: number
  readonly storesAt5Minutes: number
  readonly meanRunSeconds: number
  readonly p95RunSeconds: number
  /** What a run did on average: the store's requests and the rows it wrote. */
  readonly requestsPerRun: number
  readonly rowsPerRun: number
  /**
   * Scheduled syncs dropped because their slot ended before they ran: while they waited for a permit (saturated), or
   * when the schedule's tick sent them just before their slot's end.
   */
  readonly droppedSlots: number
  /**
   * At least 75 % of the syncs the stores asked for ran (with idle workers about 85 % do: the tick sends some slots too
   * late): the figure is the stores' demand, a floor of the capacity.
   */
  readonly demandBound: boolean
  readonly cpu: Cpu & {
    readonly workersPerRun: number
    readonly postgresPerRun: number
    readonly coresBusyPercent: number
    /** Runs per hour if every core did nothing else: cores × 3600 / CPU s per run (workers, PostgreSQL, simulator). */
    readonly cpuLimitPerHour: number
  }
  readonly balance: ReadonlyArray<Balance>
}

export interface WorkersResult {
  readonly definition: string
  readonly stores: number
  readonly ordersPerStore: number
  readonly every: string
  readonly demandPerHour: number
  readonly concurrencyPerWorker: number
  readonly changeEverySeconds: number
  readonly latencyMs: number
  readonly windowSeconds: number
  readonly cores: number
  readonly windows: ReadonlyArray<WorkersWindow>
  readonly fast3Over1: number | undefined
  readonly latency3Over1: number | undefined
}

const RUNS_IN_WINDOW = `
  SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS runs,
         count(*) FILTER (WHERE status = 'failed')::int AS failed,
         count(DISTINCT store_id) FILTER (WHERE status = 'succeeded')::int AS stores,
         coalesce(avg(requests) FILTER (WHERE status = 'succeeded'), 0)::float8 AS requests,
         coalesce(avg(rows) FILTER (WHERE status = 'succeeded'), 0)::float8 AS "rows",
         coalesce(avg(extract(epoch FROM finished_at - started_at)) FILTER (WHERE status = 'succeeded'), 0)::float8 AS mean,
         coalesce(percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))
           FILTER (WHERE status = 'succeeded'), 0)::float8 AS p95
  FROM sync.runs
  WHERE command = 'sync' AND finished_at > to_timestamp($1 / 1000.0) AND finished_at <= to_timestamp($2 / 1000.0)`

type RunFigures = { runs: number; failed: number; stores: number; requests: number; rows: number; mean: number; p95: number }

/** One measured window with the workers running now. */
const measure = async (ctx: WorkersContext, db: string, fleet: Fleet, workers: ReadonlyArray<WorkerProcess>,
  setting: WorkersWindow["setting"], seconds: number): Promise<WorkersWindow> => {
  const stores = fleet.stores.length
  const before = { cpu: cpuNow(ctx, fleet, workers), done: workers.map((w) => w.syncsDone()), skipped: workers.map((w) => w.syncsSkipped()) }
  const t0 = Date.now()
  await sleep(seconds * 1000)
  const t1 = Date.now()
  const after = cpuNow(ctx, fleet, workers)
  const [r] = await rows<RunFigures>(db, RUNS_IN_WINDOW, [t0, t1])
  const held = await rows<{ runner: string | null; n: number }>(db, "SELECT runner, count(*)::int AS n FROM sync.store_registry GROUP BY runner")
  const elapsed = (t1 - t0) / 1000
  const cpu = { workers: after.workers - before.cpu.workers, postgres: after.postgres - before.cpu.postgres, simulator: after.simulator - before.cpu.simulator }
  const perHour = (r!.runs * 3600) / elapsed
  return {
    setting,
    workers: workers.length,
    seconds: round(elapsed, 1),
    runs: r!.runs,
    failedRuns: r!.failed,
    storesSynced: r!.stores,
    storesPerHour: Math.round(perHour),
    storesAt5Minutes: Math.round(perHour / 12),
    meanRunSeconds: round(r!.mean),
    p95RunSeconds: round(r!.p95),
    requestsPerRun: round(r!.requests, 1),
    rowsPerRun: round(r!.rows, 1),
    droppedSlots: workers.reduce((n, w, i) => n + w.syncsSkipped() - before.skipped[i]!, 0),
    demandBound: r!.runs >= 0.75 * (stores * elapsed) / EVERY_SECONDS,
    cpu: {
      workers: round(cpu.workers, 1),
      postgres: round(cpu.postgres, 1),
      simulator: round(cpu.simulator, 1),
      workersPerRun: r!.runs > 0 ? round(cpu.workers / r!.runs, 3) : NaN,
      postgresPerRun: r!.runs > 0 ? round(cpu.postgres / r!.runs, 3) : NaN,
      coresBusyPercent: Math.round(((cpu.workers + cpu.postgres + cpu.simulator) / (elapsed * os.cpus().length)) * 100),
      cpuLimitPerHour: r!.runs > 0 ? Math.round((os.cpus().length * 3600 * r!.runs) / (cpu.workers + cpu.postgres + cpu.simulator)) : NaN
    },
    balance: workers.map((w, i) => ({
      worker: w.address,
      shards: w.shards(),
      syncs: w.syncsDone() - before.done[i]!,
      storesLastRunHere: held.find((h) => h.runner === w.address)?.n ?? 0
    }))
  }
}

/**
 * `stores add` for every store of the fleet, three at a time, with an hour's interval: the warm-up's first syncs. At
 * 5 s from the start, an overloaded cluster drops the slots of some stores again and again and they never get their
 * first sync (the schedule sends the stores in the same order every tick).
 */
const register = async (ctx: WorkersContext, env: Record<string, string>, fleet: Fleet) => {
  const queue = [...fleet.stores]
  await Promise.all([1, 2, 3].map(async () => {
    for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
      const run = await runCli(ctx.root, ["stores", "add", s.storeId, "--url", s.url, "--key", s.key, "--secret-env", "SHOP_SECRET",
        "--every", "1h"], { ...env, SHOP_SECRET: s.secret })
      if (run.code !== 0) throw new Error(`stores add ${s.storeId}: exit ${run.code}\n${run.output.slice(-2000)}`)
    }
  }))
}

export const workersBench = async (ctx: WorkersContext): Promise<WorkersResult> => {
  const stores = ctx.stores ?? (ctx.quick ? 8 : 80)
  const ordersPerStore = ctx.quick ? 150 : 300
  const windowSeconds = ctx.windowSeconds ?? (ctx.quick ? 10 : 60)
  const settleMs = ctx.quick ? 2_000 : 10_000
  const started = Date.now()
  const log = (text: string) => console.error(`workers (${Math.round((Date.now() - started) / 1000)} s): ${text}`)
  const fleet = await startFleet(ctx.root, { stores, orders: ordersPerStore, changeMs: CHANGE_MS })
  const workers: WorkerProcess[] = []
  return withFleet(fleet, workers, async () => {
    const db = await ctx.freshDatabase("workers")
    const env = { DATABASE_URL: db, SHOPSYNC_MASTER_KEY: randomBytes(32).toString("base64") }
    log(`registering ${stores} stores`)
    await register(ctx, env, fleet)
    log(`starting a worker (${CONCURRENCY} store jobs at once)`)
    const add = async () => workers.push(await startWorker(ctx.root, env, CONCURRENCY))
    const settled = async () => {
      await waitUntil(`${workers.length} workers holding all 300 shards`, balanced(workers), 120_000)
      await sleep(settleMs)
    }
    await add()
    log("warm-up, every store's first sync on one worker")
    await waitUntil("every store's first sync", async () =>
      (await rows<{ n: number }>(db, "SELECT count(DISTINCT store_id)::int AS n FROM sync.runs WHERE command = 'sync' AND status = 'succeeded'"))[0]!.n === stores,
    600_000)
    // No command changes a store's interval; the schedule reads it from the registry at its next tick.
    await rows(db, "UPDATE sync.store_registry SET every = make_interval(secs => $1)", [EVERY_SECONDS])
    const windows: WorkersWindow[] = []
    const window = async (setting: WorkersWindow["setting"]) => {
      await settled()
      log(`${setting}, ${workers.length} workers, ${windowSeconds} s window`)
      windows.push(await measure(ctx, db, fleet, workers, setting, windowSeconds))
    }
    for (let n = 1; n <= 3; n++) {
      while (workers.length < n) await add()
      await window("fast")
    }
    await fleet.setLatency(LATENCY_MS)
    for (let n = 3; n >= 1; n--) {
      while (workers.length > n) await workers.pop()!.stop()
      await window("latency250ms")
    }
    const ratio = (setting: WorkersWindow["setting"]) => {
      const at = (n: number) => windows.find((w) => w.setting === setting && w.workers === n)?.storesPerHour
      const [one, three] = [at(1), at(3)]
      return one && three ? round(three / one) : undefined
    }
    return {
      definition: WORKERS_DEFINITION,
      stores,
      ordersPerStore,
      every: `${EVERY_SECONDS}s`,
      demandPerHour: (stores * 3600) / EVERY_SECONDS,
      concurrencyPerWorker: CONCURRENCY,
      changeEverySeconds: CHANGE_MS / 1000,
      latencyMs: LATENCY_MS,
      windowSeconds,
      cores: os.cpus().length,
      windows,
      fast3Over1: ratio("fast"),
      latency3Over1: ratio("latency250ms")
    }
  })
}
