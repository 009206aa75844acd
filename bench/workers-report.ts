/** The workers phase's figures (bench/workers.ts) as tables: each window, then the ratios beside their targets. */
import type { WorkersResult, WorkersWindow } from "./workers.js"

/** Near-linear: three workers give at least this many times what one gives when the stores are the bottleneck. */
export const NEAR_LINEAR = 2.5

/** An incremental cluster sync's CPU (workers + PostgreSQL per run, fast stores) when issue 23 was filed: 0.13–0.16. */
const CPU_PER_SYNC_BEFORE = 0.13

/** CPU s per run of the fast windows together, workers and PostgreSQL. */
const fastCpuPerRun = (r: WorkersResult) => {
  const fast = r.windows.filter((w) => w.setting === "fast")
  const runs = fast.reduce((n, w) => n + w.runs, 0)
  return runs === 0 ? undefined : Number((fast.reduce((n, w) => n + w.cpu.workers + w.cpu.postgres, 0) / runs).toFixed(3))
}

const label = (w: WorkersWindow) => `${w.setting === "fast" ? "fast stores" : "250 ms per request"}, ${w.workers} worker${w.workers > 1 ? "s" : ""}`

const row = (r: WorkersResult, w: WorkersWindow) => ({
  // The stores got (nearly) every sync they asked for: the figure is their demand, a floor of the capacity.
  "stores kept current, 1 h": `${w.demandBound ? "≥ " : ""}${w.storesPerHour}`,
  "at 5 min": w.storesAt5Minutes,
  runs: w.runs,
  failed: w.failedRuns,
  "mean/p95 run s": `${w.meanRunSeconds}/${w.p95RunSeconds}`,
  "requests/rows per run": `${w.requestsPerRun}/${w.rowsPerRun}`,
  "CPU s per run workers/pg": `${w.cpu.workersPerRun}/${w.cpu.postgresPerRun}`,
  "CPU s workers/pg/sim": `${w.cpu.workers}/${w.cpu.postgres}/${w.cpu.simulator}`,
  "cores busy %": w.cpu.coresBusyPercent,
  // What the CPU per run allows on idle cores: the fast stores' figure on a machine not shared with other programs.
  "CPU limit, 1 h": w.cpu.cpuLimitPerHour,
  "dropped slots": w.droppedSlots,
  "shards per worker": w.balance.map((b) => b.shards ?? "-").join("/"),
  "syncs per worker": w.balance.map((b) => b.syncs).join("/"),
  "stores last run per worker": w.balance.map((b) => b.storesLastRunHere).join("/"),
  "stores synced": `${w.storesSynced} of ${r.stores}`
})

export const reportWorkers = (r: WorkersResult) => {
  console.log(`\nworkers: stores kept current per hour by 1, 2 and 3 \`shopsync worker\` processes (issue 13); ${r.stores} stores of ` +
    `${r.ordersPerStore} orders, a new and a changed order per store every ${r.changeEverySeconds} s, each registered with ` +
    `--every ${r.every} (demand ${r.demandPerHour} syncs/h), ${r.concurrencyPerWorker} store jobs per worker ` +
    `(SHOPSYNC_RUNNER_CONCURRENCY), ${r.windowSeconds} s windows, ${r.cores} cores shared by the store simulators, the ` +
    `workers and PostgreSQL (and, on this machine, other programs: wall-clock figures are noisy)`)
  console.log(`kept current: ${r.definition}`)
  console.table(Object.fromEntries(r.windows.map((w) => [label(w), row(r, w)])))
  const demandBound = (setting: WorkersWindow["setting"]) => r.windows.some((w) => w.setting === setting && w.workers === 3 && w.demandBound)
  const verdict = (v: number | undefined) =>
    v === undefined ? "not measured" : demandBound("latency250ms") ? "not measured: too few stores to keep 3 workers busy" : v >= NEAR_LINEAR ? "met" : "NOT met"
  const floor = (setting: WorkersWindow["setting"]) => (demandBound(setting) ? " (3 workers demand-bound: a floor)" : "")
  console.log("≥: the stores got at least 75 % of the syncs they asked for (idle workers give them about 85 %): a floor of the capacity")
  console.table({
    [`250 ms per request: 3 workers ≥ ${NEAR_LINEAR} × 1 worker (near-linear)`]: { value: `${r.latency3Over1 ?? "-"} ×${floor("latency250ms")}`, target: verdict(r.latency3Over1) },
    [`fast stores: 3 workers over 1 (CPU-bound on ${r.cores} cores)`]: { value: `${r.fast3Over1 ?? "-"} ×${floor("fast")}`, target: "report" },
    [`CPU s per incremental sync, workers + PostgreSQL (fast windows) ≤ ${CPU_PER_SYNC_BEFORE / 2} (half of ${CPU_PER_SYNC_BEFORE})`]: {
      value: `${fastCpuPerRun(r) ?? "-"}`,
      target: fastCpuPerRun(r) === undefined ? "not measured" : fastCpuPerRun(r)! <= CPU_PER_SYNC_BEFORE / 2 ? "met" : "NOT met"
    }
  })
  const fast = r.windows.filter((w) => w.setting === "fast" && w.runs > 0)
  if (fast.length > 0) {
    const mean = (f: (w: WorkersWindow) => number) => fast.reduce((n, w) => n + f(w) * w.runs, 0) / fast.reduce((n, w) => n + w.runs, 0)
    const requests = mean((w) => w.requestsPerRun)
    const workersMs = mean((w) => w.cpu.workersPerRun) * 1000
    console.log(`what limits the CPU per sync: the sync's own work, ${requests.toFixed(1)} store requests and ${mean((w) => w.rowsPerRun).toFixed(1)} ` +
      `rows loaded per sync with their statements: ${(workersMs / requests).toFixed(1)} ms of the workers' CPU per request made, its ` +
      `share of the statements included; ` +
      `${(mean((w) => w.cpu.postgresPerRun) * 1000).toFixed(0)} ms of PostgreSQL's per sync`)
  }
}
