/**
 * Benchmark of the store client's pace (issue 14), with default settings unless named:
 *   1. a host allowing 10 requests/s (token bucket, burst 20, RateLimit-* headers): the backfill's accepted requests as
 *      a share of what the bucket allowed while it ran, the 429s, and the runs that failed;
 *   2. a store whose latency rises past 4 requests in flight (100 ms, +50 ms per request beyond 4): the concurrency the
 *      adaptive limit settles at and its throughput against the best of a sweep of fixed settings.
 * Each run is the compiled CLI (dist/) in its own process, against a simulator process, into a fresh database.
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import { startSimulator as startStoreProcess } from "./simulator.js"

export interface RateContext {
  readonly root: string
  readonly quick: boolean
  readonly orders: number
  readonly products: number
  readonly freshDatabase: (label: string) => Promise<string>
}

/** What the CLI's pace log line says (src/http-client/adaptive-limit.ts). */
interface Pace {
  readonly requests: number
  readonly seconds: number
  readonly concurrency: number
  readonly throttled: number
  readonly backoffs: number
  readonly pauses: number
}

interface RateRun {
  readonly ok: boolean
  readonly seconds: number
  readonly rows: number
  readonly pace: Pace | undefined
}

const RATE = { rps: 10, burst: 20 }
const KNEE = { spec: "100ms,4,50ms", knee: 4 }
const FIXED = [1, 2, 4, 6, 8]

const cli = (root: string, args: ReadonlyArray<string>) => [process.execPath, path.join(root, "dist/bin/shopsync.js"), ...args]

const startSimulator = (ctx: RateContext, extra: ReadonlyArray<string>) =>
  startStoreProcess(ctx.root, { orders: ctx.orders, products: ctx.products, extra })

/** The pace line of the JSON log (stderr): its annotations carry the figures. */
const paceOf = (stderr: string): Pace | undefined => {
  for (const line of stderr.split("\n").reverse()) {
    if (!line.includes('"pace"')) continue
    try {
      const a = (JSON.parse(line) as { annotations?: Record<string, unknown> }).annotations
      if (a?.event === "pace") return a as unknown as Pace
    } catch {
      // not a JSON line
    }
  }
  return undefined
}

/** A backfill of the sales streams against `apiUrl`, into a fresh database. */
const backfill = async (ctx: RateContext, label: string, apiUrl: string, env: Record<string, string> = {}) => {
  const db = await ctx.freshDatabase(label)
  const [cmd, ...args] = cli(ctx.root, ["backfill", "--since", "2000-01-01"])
  const started = performance.now()
  return new Promise<RateRun>((resolve) => {
    const child = spawn(cmd!, args, {
      cwd: ctx.root,
      // SHOPSYNC_DEBUG: off a terminal the pace line is a debug line unless the store held requests back.
      env: { ...process.env, SHOPSYNC_CONFIG: "/dev/null", DATABASE_URL: db, STORE_API_URL: apiUrl, STORE_CONSUMER_KEY: "ck_demo",
        STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "bench", STORE_SETTLE_SECONDS: "0", SHOPSYNC_DEBUG: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += String(d)))
    child.stderr.on("data", (d) => (stderr += String(d)))
    child.on("close", (code) => {
      const rows = Number(/run \d+: (\d+) rows/.exec(stdout)?.[1] ?? NaN)
      if (code !== 0) console.error(`${label}: exit ${code}\n${stderr.slice(-1500)}`)
      resolve({ ok: code === 0, seconds: (performance.now() - started) / 1000, rows, pace: paceOf(stderr) })
    })
  })
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits))

const rateLimited = async (ctx: RateContext) => {
  const sim = await startSimulator(ctx, ["--rate-limit", String(RATE.rps), "--burst", String(RATE.burst)])
  try {
    const runs: RateRun[] = []
    for (let i = 0; i < (ctx.quick ? 1 : 3); i++) {
      console.error(`rate-limited store (${RATE.rps}/s, burst ${RATE.burst}): backfill ${i + 1}`)
      runs.push(await backfill(ctx, `rate${i}`, sim.url))
      // The bucket refills between runs, as it would between cron runs.
      await new Promise((r) => setTimeout(r, (RATE.burst / RATE.rps) * 1000))
    }
    const measured = runs.filter((r) => r.ok && r.pace !== undefined).map((r) => r.pace!)
    const accepted = measured.reduce((n, p) => n + p.requests - p.throttled, 0)
    // What the bucket let through while requests were sent: a full bucket at the start, then the rate.
    const allowed = measured.reduce((n, p) => n + RATE.burst + RATE.rps * p.seconds, 0)
    const requests = measured.reduce((n, p) => n + p.requests, 0)
    const throttled = measured.reduce((n, p) => n + p.throttled, 0)
    return {
      allowedRps: RATE.rps,
      burst: RATE.burst,
      runs: runs.length,
      failedRuns: runs.filter((r) => !r.ok).length,
      requests,
      throttled,
      throttledShare: requests > 0 ? round(throttled / requests, 3) : undefined,
      achievedRps: round(accepted / measured.reduce((n, p) => n + p.seconds, 0), 2),
      /** The accepted rate over the allowed rate: the target. */
      shareOfRate: round(accepted / measured.reduce((n, p) => n + p.seconds, 0) / RATE.rps, 3),
      /** Stricter: the first full bucket counted too (weighs heavily on short runs). */
      shareOfAllowance: allowed > 0 ? round(accepted / allowed, 3) : undefined,
      perRun: runs.map((r) => ({ ok: r.ok, seconds: round(r.seconds, 1), ...r.pace }))
    }
  } finally {
    sim.stop()
  }
}

const latencyKnee = async (ctx: RateContext) => {
  const sim = await startSimulator(ctx, ["--latency-knee", KNEE.spec])
  try {
    // Rows per second of requesting: every run loads the same rows, however many requests its slicing took.
    const throughput = (r: RateRun) => (r.ok && r.pace && r.pace.seconds > 0 ? round(r.rows / r.pace.seconds, 1) : 0)
    const fixed = []
    for (const c of FIXED) {
      console.error(`latency knee at ${KNEE.knee}: fixed concurrency ${c}`)
      const run = await backfill(ctx, `knee${c}`, sim.url, { STORE_CONCURRENCY: String(c), STORE_CONCURRENCY_MODE: "fixed" })
      fixed.push({ concurrency: c, ok: run.ok, seconds: round(run.seconds, 1), rowsPerSecond: throughput(run) })
    }
    console.error(`latency knee at ${KNEE.knee}: default settings (adaptive)`)
    const adaptive = await backfill(ctx, "kneeadaptive", sim.url)
    const best = fixed.reduce((a, b) => (b.rowsPerSecond > a.rowsPerSecond ? b : a))
    return {
      latency: KNEE.spec,
      fixed,
      best: { concurrency: best.concurrency, rowsPerSecond: best.rowsPerSecond },
      adaptive: { ok: adaptive.ok, seconds: round(adaptive.seconds, 1), rowsPerSecond: throughput(adaptive), settledConcurrency: adaptive.pace?.concurrency, backoffs: adaptive.pace?.backoffs },
      adaptiveOverBest: best.rowsPerSecond > 0 ? round(throughput(adaptive) / best.rowsPerSecond, 3) : undefined
    }
  }
  finally {
    sim.stop()
  }
}

export type RateResult = { rateLimited: Awaited<ReturnType<typeof rateLimited>>; latencyKnee: Awaited<ReturnType<typeof latencyKnee>> }

export const rateBench = async (ctx: RateContext): Promise<RateResult> => ({ rateLimited: await rateLimited(ctx), latencyKnee: await latencyKnee(ctx) })

export const reportRate = (r: RateResult) => {
  const verdict = (ok: boolean | undefined) => (ok === undefined ? "not measured" : ok ? "met" : "NOT met")
  const rl = r.rateLimited
  const knee = r.latencyKnee
  console.log(`store pace (figures from a shared machine: noisy)`)
  console.table(Object.fromEntries(knee.fixed.map((f) => [`knee store, fixed ${f.concurrency}`, { "rows/s": f.rowsPerSecond, "wall s": f.seconds, ok: f.ok }])))
  console.table({
    [`rate-limited (${rl.allowedRps}/s, burst ${rl.burst}): accepted rate ≥ 90 % of the allowed rate`]: {
      value: `${Math.round(rl.shareOfRate * 100)} % (${rl.achievedRps}/s; ${Math.round((rl.shareOfAllowance ?? 0) * 100)} % counting the first burst too)`,
      target: verdict(Number.isFinite(rl.shareOfRate) ? rl.shareOfRate >= 0.9 : undefined)
    },
    "rate-limited: 429s (< 10 % of requests)": { value: `${rl.throttled} of ${rl.requests}`, target: verdict(rl.throttledShare === undefined ? undefined : rl.throttledShare < 0.1) },
    "rate-limited: failed runs = 0": { value: `${rl.failedRuns} of ${rl.runs}`, target: verdict(rl.failedRuns === 0) },
    [`latency knee (${knee.latency}): adaptive within 10 % of the best fixed`]: {
      value: `${knee.adaptive.rowsPerSecond}/s at ${knee.adaptive.settledConcurrency ?? "-"} in flight; best fixed ${knee.best.rowsPerSecond}/s at ${knee.best.concurrency}`,
      target: verdict(knee.adaptiveOverBest === undefined ? undefined : knee.adaptiveOverBest >= 0.9)
    }
  })
}
