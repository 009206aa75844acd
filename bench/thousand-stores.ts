/**
 * A thousand stores on this machine (issue 23): 1,000 simulated stores (bench/store-fleet.ts, one process), each
 * registered with `--every 5m`, kept by 3 `shopsync worker` processes with their default settings, on the
 * benchmark's PostgreSQL. After every store's first sync and one interval to settle, a 15-minute window: each store
 * is due once per 5-minute slot (src/cluster/schedule.ts, shifted by a hash of its id), and a store is late when a slot
 * that lies wholly inside the window saw no succeeded sync start. Prints the late stores, how long after its slot's start
 * a sync started, and the CPU each sync cost the workers and PostgreSQL.
 */
import { randomBytes } from "node:crypto"
import * as os from "node:os"
import { ConfigProvider, Duration, Effect, Layer, Option, Redacted } from "effect"
import { currentSlot } from "../src/cluster/schedule.js"
import { StoreRegistry } from "../src/stores/registry.js"
import { DatabaseLive } from "../src/warehouse/database.js"
import { cpuNow, type Cpu, type Fleet, round, rows, sleep, startFleet, startWorker, waitUntil, type WorkerProcess, withFleet } from "./worker-processes.js"

export interface ThousandContext {
  readonly root: string
  readonly quick: boolean
  /** The PostgreSQL server's postmaster: its CPU and its backends' are counted. */
  readonly postgres: number
  /** A new, migrated warehouse database (dropped by the caller). */
  readonly freshDatabase: (label: string) => Promise<string>
}

export interface ThousandResult {
  readonly stores: number
  readonly ordersPerStore: number
  readonly everySeconds: number
  readonly workers: number
  readonly concurrencyPerWorker: number
  readonly changeEverySeconds: number
  readonly windowSeconds: number
  readonly warmUpSeconds: number
  /** Slots wholly inside the window, over all stores, and those that saw no succeeded sync start. */
  readonly slots: number
  readonly missedSlots: number
  readonly lateStores: number
  /** From a slot's start to the start of its first succeeded sync. */
  readonly lagP95Seconds: number
  readonly lagMaxSeconds: number
  readonly runs: number
  readonly failedRuns: number
  readonly meanRunSeconds: number
  readonly requestsPerRun: number
  readonly cpu: Cpu & { readonly workersPerRun: number; readonly postgresPerRun: number; readonly coresBusyPercent: number }
  readonly loadAverage: ReadonlyArray<number>
}

const WORKERS = 3
/** SHOPSYNC_RUNNER_CONCURRENCY's default: the fleet runs as an operator would start it. */
const CONCURRENCY = 4

/** Every store of the fleet in the registry at once, through the registry's own service (`stores add --no-check`). */
const register = (db: string, masterKey: string, fleet: Fleet, everyMs: number) =>
  Effect.runPromise(Effect.gen(function*() {
    const registry = yield* StoreRegistry
    yield* Effect.forEach(fleet.stores, (s) =>
      registry.add({
        storeId: s.storeId, apiUrl: s.url, consumerKey: s.key, consumerSecret: Redacted.make(s.secret), everyMs,
        webhookSecret: Option.none(), marketing: Option.none()
      }), { concurrency: 8, discard: true })
  }).pipe(
    Effect.provide(StoreRegistry.Default.pipe(Layer.provideMerge(DatabaseLive))),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["DATABASE_URL", db], ["SHOPSYNC_MASTER_KEY", masterKey]])))
  ))

interface Run {
  readonly store_id: string
  readonly started: number
  readonly seconds: number | null
  readonly status: string
  readonly requests: number
}

/** Each store's slots wholly inside [t0, t1], and the lag of the first succeeded sync started in each. */
const slotsOf = (storeIds: ReadonlyArray<string>, runs: ReadonlyArray<Run>, everyMs: number, t0: number, t1: number) => {
  const byStore = new Map<string, number[]>()
  for (const r of runs) if (r.status === "succeeded") byStore.set(r.store_id, [...(byStore.get(r.store_id) ?? []), r.started])
  const lags: number[] = []
  let slots = 0
  let missed = 0
  const late = new Set<string>()
  for (const storeId of storeIds) {
    const started = byStore.get(storeId) ?? []
    for (let at = currentSlot({ storeId, every: Duration.millis(everyMs), enabled: true }, t0).startsAt; at + everyMs <= t1; at += everyMs) {
      if (at < t0) continue
      slots++
      const first = started.filter((s) => s >= at && s < at + everyMs).sort((a, b) => a - b)[0]
      if (first === undefined) {
        missed++
        late.add(storeId)
      } else lags.push((first - at) / 1000)
    }
  }
  lags.sort((a, b) => a - b)
  const p95 = lags.length === 0 ? NaN : lags[Math.min(lags.length - 1, Math.ceil(lags.length * 0.95) - 1)]!
  return { slots, missed, late: late.size, lagP95: round(p95, 1), lagMax: round(lags.at(-1) ?? NaN, 1) }
}

export const thousandStoresBench = async (ctx: ThousandContext): Promise<ThousandResult> => {
  const stores = ctx.quick ? 20 : 1000
  const ordersPerStore = 20
  const everyMs = ctx.quick ? 30_000 : 300_000
  const windowMs = ctx.quick ? 90_000 : 900_000
  const changeMs = ctx.quick ? 10_000 : 60_000
  const started = Date.now()
  const log = (text: string) => console.error(`thousand stores (${Math.round((Date.now() - started) / 1000)} s): ${text}`)
  log(`starting ${stores} simulated stores`)
  const fleet = await startFleet(ctx.root, { stores, orders: ordersPerStore, changeMs })
  const workers: WorkerProcess[] = []
  return withFleet(fleet, workers, async () => {
    const db = await ctx.freshDatabase("thousand")
    const env = { DATABASE_URL: db, SHOPSYNC_MASTER_KEY: randomBytes(32).toString("base64") }
    log(`registering ${stores} stores, every ${everyMs / 1000} s`)
    await register(db, env.SHOPSYNC_MASTER_KEY, fleet, everyMs)
    for (let i = 0; i < WORKERS; i++) workers.push(await startWorker(ctx.root, env, CONCURRENCY))
    log(`${WORKERS} workers started; warm-up: every store's first sync`)
    const synced = async () =>
      (await rows<{ n: number }>(db, "SELECT count(DISTINCT store_id)::int AS n FROM sync.runs WHERE command = 'sync' AND status = 'succeeded'"))[0]!.n
    await waitUntil("every store's first sync", async () => (await synced()) === stores, 3_600_000)
    const warmUpSeconds = round((Date.now() - started) / 1000, 0)
    log(`every store synced once; settling for one interval`)
    await sleep(everyMs)
    const before = { cpu: cpuNow(ctx, fleet, workers), load: os.loadavg()[0]! }
    const t0 = Date.now()
    log(`measuring a ${windowMs / 1000} s window`)
    await sleep(windowMs)
    const t1 = Date.now()
    const after = cpuNow(ctx, fleet, workers)
    const load = os.loadavg()
    const runs = await rows<Run>(db,
      `SELECT store_id, (extract(epoch FROM started_at) * 1000)::float8 AS started,
              extract(epoch FROM finished_at - started_at)::float8 AS seconds, status, requests::int AS requests
       FROM sync.runs WHERE command = 'sync' AND started_at >= to_timestamp($1 / 1000.0) AND started_at < to_timestamp($2 / 1000.0)`,
      [t0 - everyMs, t1])
    const slots = slotsOf(fleet.stores.map((s) => s.storeId), runs, everyMs, t0, t1)
    const inWindow = runs.filter((r) => r.started >= t0 && r.status !== "running")
    const succeeded = inWindow.filter((r) => r.status === "succeeded")
    const cpu = { workers: after.workers - before.cpu.workers, postgres: after.postgres - before.cpu.postgres, simulator: after.simulator - before.cpu.simulator }
    const n = Math.max(1, succeeded.length)
    return {
      stores, ordersPerStore, everySeconds: everyMs / 1000, workers: WORKERS, concurrencyPerWorker: CONCURRENCY,
      changeEverySeconds: changeMs / 1000, windowSeconds: round((t1 - t0) / 1000, 0), warmUpSeconds,
      slots: slots.slots, missedSlots: slots.missed, lateStores: slots.late, lagP95Seconds: slots.lagP95, lagMaxSeconds: slots.lagMax,
      runs: succeeded.length,
      failedRuns: inWindow.filter((r) => r.status === "failed").length,
      meanRunSeconds: round(succeeded.reduce((s, r) => s + (r.seconds ?? 0), 0) / n),
      requestsPerRun: round(succeeded.reduce((s, r) => s + r.requests, 0) / n, 1),
      cpu: {
        workers: round(cpu.workers, 1), postgres: round(cpu.postgres, 1), simulator: round(cpu.simulator, 1),
        workersPerRun: round(cpu.workers / n, 3), postgresPerRun: round(cpu.postgres / n, 3),
        coresBusyPercent: Math.round(((cpu.workers + cpu.postgres + cpu.simulator) / (((t1 - t0) / 1000) * os.cpus().length)) * 100)
      },
      loadAverage: [round(before.load, 2), ...load.map((l) => round(l, 2))]
    }
  })
}

export const reportThousandStores = (r: ThousandResult) => {
  const perSync = round(r.cpu.workersPerRun + r.cpu.postgresPerRun, 3)
  console.log(`\nthousand stores: ${r.stores} simulated stores of ${r.ordersPerStore} orders (a new and a changed order each every ` +
    `${r.changeEverySeconds} s), each synced every ${r.everySeconds} s by ${r.workers} workers (${r.concurrencyPerWorker} jobs each), ` +
    `${r.windowSeconds} s window after a ${r.warmUpSeconds} s warm-up; ${os.cpus().length} cores shared with the simulators and PostgreSQL; ` +
    `load average ${r.loadAverage.join(" / ")} (before the window; 1, 5, 15 min after)`)
  console.table({
    "slots in the window": { value: `${r.slots} (${r.missedSlots} without a sync)` },
    "late stores": { value: r.lateStores, target: `0: ${r.lateStores === 0 ? "met" : "NOT met"}` },
    "sync start after its slot's start, p95 / max": { value: `${r.lagP95Seconds} s / ${r.lagMaxSeconds} s` },
    "syncs (failed)": { value: `${r.runs} (${r.failedRuns}), ${r.meanRunSeconds} s mean, ${r.requestsPerRun} requests each` },
    // Stores of 20 orders: the workers phase's stores of 300 hold the halving target.
    "CPU s per sync, workers + PostgreSQL": { value: `${perSync} (${r.cpu.workersPerRun} + ${r.cpu.postgresPerRun}); cores busy ${r.cpu.coresBusyPercent} %` }
  })
}
