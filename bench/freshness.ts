/**
 * Freshness (issue 12): how soon a change in the store shows in analytics.daily_net_sales with `shopsync serve`
 * running as a real process (the compiled CLI) against a simulator of its own (its own process) and a warehouse
 * of its own. Orders are changed through the store API as a merchant would (PUT /orders/<id>, completed →
 * cancelled, which takes the order out of its day's orders_count); the store's delivery log is read through the
 * simulator's control route (/__simulator/webhook-deliveries), never through the store API.
 *
 *   1. webhooks: `store-hooks ensure`, then one change at a time, each timed until its (day, currency) row of
 *      daily_net_sales shows it (the background sync runs too, every 5 minutes, the default);
 *   2. a burst: 1,000 changes in 10 s (100 a second), each delivered by the store; what the store delivered is
 *      compared with what the inbox stored and applied, and the warehouse's orders with the store's answers;
 *   3. the scheduled sync only: the subscriptions removed, `serve` restarted with SHOPSYNC_SYNC_EVERY=30s, changes
 *      made at random moments over the intervals, each timed the same way.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { freePort } from "../test/support/ports.js"
import pg from "pg"

export interface FreshnessContext {
  readonly quick: boolean
  /** The compiled CLI's command line for `args`. */
  readonly shopsync: (args: ReadonlyArray<string>) => string[]
  readonly startSimulator: (orders: number) => Promise<{ url: string; stop: () => void }>
  /** A new, migrated warehouse database (dropped by the caller). */
  readonly freshDatabase: (label: string) => Promise<string>
  /** The environment of a run against `databaseUrl` and the store at `apiUrl`. */
  readonly env: (databaseUrl: string, apiUrl: string) => Record<string, string>
}

export interface Latencies {
  readonly changes: number
  readonly p50Ms: number
  readonly p95Ms: number
  readonly maxMs: number
}

export interface FreshnessResult {
  readonly storeOrders: number
  readonly webhooks: Latencies & { readonly backgroundSyncEvery: string }
  readonly scheduledOnly: Latencies & { readonly syncEvery: string }
  readonly burst: {
    readonly changes: number
    readonly changeSeconds: number
    readonly delivered: number
    readonly deliveredOk: number
    readonly stored: number
    readonly applied: number
    readonly lost: number
    readonly drainSeconds: number
    /** The changed orders the warehouse holds with the status and total of the store's last answer, of ordersChanged. */
    readonly ordersAsInStore: number
    readonly ordersChanged: number
  }
}

const SECRET = "whsec_bench_freshness"
const SCHEDULED_EVERY_S = 30
const BURST = 1_000
const BURST_SECONDS = 10

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** The nearest-rank percentile `p` of numbers sorted ascending (NaN for none). */
export const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
const latencies = (ms: ReadonlyArray<number>): Latencies => {
  const sorted = [...ms].sort((a, b) => a - b)
  return { changes: ms.length, p50Ms: Math.round(percentile(sorted, 50)), p95Ms: Math.round(percentile(sorted, 95)), maxMs: Math.round(sorted.at(-1) ?? NaN) }
}


/** The store API as the bench uses it: Basic auth with the simulator's demo key. */
const storeApi = (apiUrl: string) => {
  const headers = { authorization: `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}`, "content-type": "application/json" }
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${apiUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${(await res.text()).slice(0, 300)}`)
    return (await res.json()) as T
  }
}
type Api = ReturnType<typeof storeApi>

interface Order {
  readonly id: number
  readonly status: string
  readonly currency: string
  readonly total: string
  readonly date_created: string
}

/** The store's completed orders: one per (store-local day, currency) for the timed changes, the others for the burst. */
const pickOrders = async (api: Api, timed: number) => {
  const orders: Order[] = []
  for (let page = 1; ; page++) {
    const docs = await api<Order[]>("GET", `/orders?status=completed&orderby=id&order=asc&per_page=100&page=${page}`)
    orders.push(...docs)
    if (docs.length < 100) break
  }
  const seen = new Set<string>()
  const single = orders.filter((o) => {
    const key = `${o.date_created.slice(0, 10)} ${o.currency}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  }).slice(0, timed)
  if (single.length < timed) throw new Error(`freshness: only ${single.length} distinct (day, currency) pairs with a completed order`)
  const picked = new Set(single.map((o) => o.id))
  return { timed: single, rest: orders.filter((o) => !picked.has(o.id)) }
}

/** `shopsync serve` as its own process on a free port; `ready` resolves when its first scheduled sync finished. */
const startServe = async (ctx: FreshnessContext, env: Record<string, string>) => {
  const [port, adminPort] = [await freePort(), await freePort()]
  const [cmd, ...args] = ctx.shopsync(["serve"])
  const child = spawn(cmd!, args, {
    env: { ...process.env, SHOPSYNC_CONFIG: "/dev/null", ...env, SHOPSYNC_HTTP_PORT: String(port), SHOPSYNC_ADMIN_PORT: String(adminPort) },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr!.on("data", (d) => (stderr += String(d)))
  const ready = (async () => {
    for (const started = Date.now(); Date.now() - started < 300_000; await sleep(100)) {
      if (/background sync: run \d+ done/.test(stderr)) return
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}:\n${stderr.slice(-2000)}`)
    }
    throw new Error(`serve's first sync did not finish within 5 minutes:\n${stderr.slice(-2000)}`)
  })()
  return { child, hookUrl: `http://127.0.0.1:${port}/webhooks/store`, ready, stderr: () => stderr }
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

const cli = (ctx: FreshnessContext, args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<string>((resolve, reject) => {
    const [cmd, ...rest] = ctx.shopsync(args)
    const child = spawn(cmd!, rest, { env: { ...process.env, SHOPSYNC_CONFIG: "/dev/null", ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout!.on("data", (d) => (out += String(d)))
    child.stderr!.on("data", (d) => (out += String(d)))
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`shopsync ${args.join(" ")}: exit ${code}\n${out.slice(-2000)}`))))
  })

/** Orders counted on one (day, currency) row of daily_net_sales (0 without a row). */
const countedOn = async (db: pg.Pool, day: string, currency: string) =>
  (await db.query<{ n: number }>(
    "SELECT coalesce(sum(orders_count), 0)::int AS n FROM analytics.daily_net_sales WHERE store_id = 'bench' AND day = $1 AND currency = $2",
    [day, currency]
  )).rows[0]!.n

/** Cancels a completed order and waits until its day's row counts one order less: milliseconds from the change. */
const timeChange = async (api: Api, db: pg.Pool, order: Order, pollMs: number, timeoutMs: number) => {
  const day = order.date_created.slice(0, 10)
  const before = await countedOn(db, day, order.currency)
  const started = performance.now()
  await api("PUT", `/orders/${order.id}`, { status: "cancelled" })
  while (performance.now() - started < timeoutMs) {
    if (await countedOn(db, day, order.currency) === before - 1) return performance.now() - started
    await sleep(pollMs)
  }
  throw new Error(`freshness: order ${order.id} cancelled, not shown on ${day} ${order.currency} within ${timeoutMs} ms`)
}

type Delivery = { id: number; topic: string; code: number }

/** The store's deliveries so far, from the simulator's control route (idle: once its queue is empty). */
const deliveries = async (apiUrl: string, idle: boolean) =>
  (await (await fetch(`${apiUrl.replace(/\/wp-json\/.*$/, "")}/__simulator/webhook-deliveries${idle ? "?idle=1" : ""}`)).json()) as Delivery[]

/** 1,000 status changes over 10 s (each of `orders` cancelled, then completed again, …), paced, not awaited one by one. */
const burstChanges = async (api: Api, orders: ReadonlyArray<Order>) => {
  const last = new Map<number, Order>()
  const started = performance.now()
  const inFlight: Array<Promise<void>> = []
  for (let i = 0; i < BURST; i++) {
    await sleep(started + (i * BURST_SECONDS * 1000) / BURST - performance.now())
    const order = orders[i % orders.length]!
    const status = Math.floor(i / orders.length) % 2 === 0 ? "cancelled" : "completed"
    inFlight.push(api<Order>("PUT", `/orders/${order.id}`, { status }).then((doc) => void last.set(doc.id, doc)))
  }
  await Promise.all(inFlight)
  return { last, changeSeconds: (performance.now() - started) / 1000, started }
}

/** The burst: what the store delivered against what the inbox stored and applied; the orders as the store left them. */
const burst = async (apiUrl: string, api: Api, db: pg.Pool, orders: ReadonlyArray<Order>): Promise<FreshnessResult["burst"]> => {
  const before = (await deliveries(apiUrl, true)).length
  const { last, changeSeconds, started } = await burstChanges(api, orders)
  const sent = (await deliveries(apiUrl, true)).slice(before)
  const ok = sent.filter((d) => d.code >= 200 && d.code < 300).map((d) => String(d.id))
  const inbox = async () => (await db.query<{ state: string; n: number }>(
    "SELECT state, count(*)::int AS n FROM sync.webhook_inbox WHERE store_id = 'bench' AND delivery_id = ANY($1) GROUP BY state", [ok])).rows
  let states = await inbox()
  for (const t0 = Date.now(); states.some((s) => s.state === "pending") && Date.now() - t0 < 120_000; states = await inbox()) await sleep(50)
  const drainSeconds = (performance.now() - started) / 1000
  const n = (...which: string[]) => states.filter((s) => which.includes(s.state)).reduce((sum, s) => sum + s.n, 0)
  const ids = [...last.keys()]
  const held = (await db.query<{ id: number; status: string; total: string }>(
    "SELECT id::int, status, total::text FROM store.orders WHERE store_id = 'bench' AND id = ANY($1)", [ids])).rows
  const same = held.filter((r) => last.get(r.id)?.status === r.status && Number(last.get(r.id)?.total) === Number(r.total)).length
  return {
    changes: BURST,
    changeSeconds: Number(changeSeconds.toFixed(1)),
    delivered: sent.length,
    deliveredOk: ok.length,
    stored: n("pending", "applied", "skipped", "failed"),
    applied: n("applied", "skipped"),
    lost: ok.length - n("applied", "skipped"),
    drainSeconds: Number(drainSeconds.toFixed(1)),
    ordersAsInStore: same,
    ordersChanged: ids.length
  }
}

/** One change at a time, with webhooks subscribed: each timed on its own. */
const timedOneByOne = async (api: Api, db: pg.Pool, orders: ReadonlyArray<Order>) => {
  const waits: number[] = []
  for (const order of orders) {
    waits.push(await timeChange(api, db, order, 20, 30_000))
    await sleep(50 + Math.random() * 200)
  }
  return latencies(waits)
}

/** Changes made at random moments over `spreadMs`, each timed on its own (distinct rows, so they cannot mix). */
const timedSpread = async (api: Api, db: pg.Pool, orders: ReadonlyArray<Order>, spreadMs: number, timeoutMs: number) => {
  const waits = await Promise.all(orders.map(async (order) => {
    await sleep(Math.random() * spreadMs)
    return timeChange(api, db, order, 100, timeoutMs)
  }))
  return latencies(waits)
}

/** The scenario: webhooks one by one, the burst, then the scheduled sync alone. */
export const freshness = async (ctx: FreshnessContext): Promise<FreshnessResult> => {
  const storeOrders = ctx.quick ? 1_500 : 10_000
  const timedWithHooks = ctx.quick ? 20 : 60
  const timedScheduled = ctx.quick ? 8 : 20
  const sim = await ctx.startSimulator(storeOrders)
  const url = await ctx.freshDatabase("freshness")
  // A pool: the scheduled phase polls several rows at once.
  const db = new pg.Pool({ connectionString: url, max: 4 })
  const children: ChildProcess[] = []
  try {
    const api = storeApi(sim.url)
    const picked = await pickOrders(api, timedWithHooks + timedScheduled)
    const env = { ...ctx.env(url, sim.url), STORE_WEBHOOK_SECRET: SECRET }

    console.error(`freshness: serve with webhooks (background sync every 5m), ${timedWithHooks} changes one by one, then ${BURST} in ${BURST_SECONDS} s`)
    const hooked = await startServe(ctx, { ...env, SHOPSYNC_SYNC_EVERY: "5m" })
    children.push(hooked.child)
    await hooked.ready
    await cli(ctx, ["store-hooks", "ensure", "--url", hooked.hookUrl], env)
    const webhooks = await timedOneByOne(api, db, picked.timed.slice(0, timedWithHooks))
    const burstResult = await burst(sim.url, api, db, picked.rest.slice(0, 500))
    await cli(ctx, ["store-hooks", "remove", "--url", hooked.hookUrl], env)
    await stop(hooked.child)

    const every = SCHEDULED_EVERY_S * 1000
    console.error(`freshness: serve without webhooks, SHOPSYNC_SYNC_EVERY=${SCHEDULED_EVERY_S}s, ${timedScheduled} changes at random moments`)
    const scheduled = await startServe(ctx, { ...env, SHOPSYNC_SYNC_EVERY: `${SCHEDULED_EVERY_S}s` })
    children.push(scheduled.child)
    await scheduled.ready
    const spread = ctx.quick ? every : 3 * every
    const scheduledOnly = await timedSpread(api, db, picked.timed.slice(timedWithHooks), spread, 4 * every + 60_000)
    return {
      storeOrders,
      webhooks: { ...webhooks, backgroundSyncEvery: "5m" },
      scheduledOnly: { ...scheduledOnly, syncEvery: `${SCHEDULED_EVERY_S}s` },
      burst: burstResult
    }
  } finally {
    for (const child of children) await stop(child)
    await db.end()
    sim.stop()
  }
}

/** The figures beside their targets. */
export const reportFreshness = (r: FreshnessResult) => {
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met")
  const b = r.burst
  console.log(`freshness: a changed order until analytics.daily_net_sales shows it (store of ${r.storeOrders} orders, serve as its own process)`)
  console.table({
    "with webhooks: p95 < 2 s": {
      value: `p50 ${r.webhooks.p50Ms} ms, p95 ${r.webhooks.p95Ms} ms, max ${r.webhooks.maxMs} ms (${r.webhooks.changes} changes)`,
      target: verdict(r.webhooks.p95Ms < 2000)
    },
    [`scheduled sync only, every ${r.scheduledOnly.syncEvery}`]: {
      value: `p50 ${(r.scheduledOnly.p50Ms / 1000).toFixed(1)} s, p95 ${(r.scheduledOnly.p95Ms / 1000).toFixed(1)} s, max ${(r.scheduledOnly.maxMs / 1000).toFixed(1)} s (${r.scheduledOnly.changes} changes)`,
      target: "for comparison"
    },
    [`${b.changes} deliveries in ${BURST_SECONDS} s: nothing lost`]: {
      value: `changes in ${b.changeSeconds} s; store delivered ${b.delivered} (${b.deliveredOk} answered 2xx); inbox stored ${b.stored}, applied ${b.applied}; ` +
        `lost ${b.lost}; drained ${b.drainSeconds} s after the first change; orders as in the store: ${b.ordersAsInStore} of ${b.ordersChanged}`,
      target: verdict(b.lost === 0 && b.deliveredOk === b.changes && b.ordersAsInStore === b.ordersChanged)
    }
  })
}
