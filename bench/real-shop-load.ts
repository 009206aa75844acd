/**
 * The shop's capacity and its other visitors (issue 23, item 2), on the real shop after real-shop.ts's syncs:
 * - the shop is first topped up to LOAD_ORDERS orders (plain orders over the last 60 days, through WooCommerce's PHP
 *   API, two processes at once): at 420 a run's fixed costs (its clock, the first page that tells how to cut the rest)
 *   would be measured, not its pace;
 * - capacity: a bare client (OAuth 1.0a, nothing else) reads the order listing in pages of 100 by id at 1, 2, 4 and 8
 *   requests in flight, several rounds each; the best orders per second is what the shop can serve. Backfills of the
 *   orders by shopsync with default settings are measured against it (their own run time, from the summary; the
 *   median of BACKFILLS);
 * - CPU per order of the shop (PHP and MariaDB, from /proc), the CLI and PostgreSQL, bare and during the backfills:
 *   on one machine they share its cores, which bounds what any client can get from the shop here;
 * - _fields: a page of 100 orders whole and trimmed to the ids and dates the reconciliation reads, median of 9 each;
 * - visitors: the storefront's home page (`GET /`, PHP rendering a page as for a customer) one request after another,
 *   idle, then while backfills of the sales streams run back to back; the p95 of each, and their ratio.
 */
import { createHmac } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import OAuth from "oauth-1.0a"
import type { RealStore } from "../test/support/real-woo.js"
import { percentile } from "./freshness.js"

/** A backfill of `streams` (comma-separated) by the CLI: its output (the run's summary on stdout) and CPU seconds; rejects when it fails. */
export type Backfill = (streams: string, env?: Record<string, string>) => Promise<{ readonly stdout: string; readonly cpu: { readonly cli: number; readonly postgres: number } }>

/** CPU milliseconds per order, by program. */
export interface CpuPerOrder {
  readonly shop: number
  readonly cli: number
  readonly postgres: number
}

export interface LoadFigures {
  readonly orders: number
  /** Orders per second a bare client reads at each concurrency. */
  readonly bareOrdersPerSecond: Readonly<Record<string, number>>
  readonly capacityOrdersPerSecond: number
  /** The shop's CPU per order at its best concurrency, bare. */
  readonly bareShopCpuMsPerOrder: number
  readonly backfillOrdersPerSecond: number
  /** During the backfills (their sum over their orders). */
  readonly backfillCpuMsPerOrder: CpuPerOrder
  /** The backfill's share of the shop's capacity (target ≥ 0.8). */
  readonly shareOfCapacity: number
  /**
   * The most any client of the shop on this machine could get, as a share of the capacity: the cores over the CPU an
   * order costs the shop, the CLI and PostgreSQL together (≥ 1: the machine does not bound it).
   */
  readonly machineBound: number
  readonly visitorP95Ms: { readonly idle: number; readonly duringBackfill: number; readonly duringOneInFlight: number }
  /** p95 during backfills over p95 idle (target ≤ 1.5). */
  readonly visitorSlowdown: number
  readonly backfills: number
  /** The same with STORE_CONCURRENCY=1, and that backfill's orders per second (a shop that must stay fast pays with time). */
  readonly oneInFlight: { readonly visitorSlowdown: number; readonly ordersPerSecond: number }
  /** A page of 100 orders, median ms and bytes: whole, and trimmed to what the reconciliation reads (`_fields`). */
  readonly fields: { readonly wholeMs: number; readonly wholeBytes: number; readonly trimmedMs: number; readonly trimmedBytes: number }
}

const ROUNDS = 4
const VISITS = 40
const LOAD_ORDERS = 2000
const BACKFILLS = 3

/** Adds plain orders until the shop holds `target` (trash included), two PHP processes at once. */
const topUp = async (store: RealStore, held: number, target: number) => {
  const code = `$n = $args['n']; $tag = $args['tag'];
for ($i = 0; $i < $n; $i++) {
  $o = new WC_Order();
  $o->set_billing_email("load$tag-$i@example.test");
  $o->set_total(sprintf('%d.%02d', mt_rand(5, 500), mt_rand(0, 99)));
  $o->set_date_created(time() - mt_rand(3600, 60 * 86400));
  $o->set_status('completed');
  $o->save();
}
echo json_encode($n);`
  const missing = Math.max(0, target - held)
  const half = Math.ceil(missing / 2)
  const added = await Promise.all([store.php<number>(code, { n: half, tag: "a" }), store.php<number>(code, { n: missing - half, tag: "b" })])
  return held + added[0] + added[1]
}

/** CPU seconds so far of the shop's processes (its PHP server and workers, its MariaDB): those naming its directory. */
const shopCpuSeconds = (dir: string) => {
  let seconds = 0
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(dir)) continue
      const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
      seconds += (Number(fields[11]) + Number(fields[12])) / TICKS
    } catch {
      // The process ended meanwhile.
    }
  }
  return seconds
}
const TICKS = 100

const signer = (store: RealStore) => {
  const oauth = new OAuth({
    consumer: { key: store.consumerKey, secret: store.consumerSecret },
    signature_method: "HMAC-SHA256",
    hash_function: (base, key) => createHmac("sha256", key).update(base).digest("base64")
  })
  return (path: string, params: Record<string, string>) => {
    const url = `${store.apiUrl}${path}`
    const auth = oauth.authorize({ url, method: "GET", data: params })
    return `${url}?${new URLSearchParams({ ...params, ...(auth as unknown as Record<string, string>) })}`
  }
}

const fetchText = async (url: string) => {
  const started = performance.now()
  const res = await fetch(url)
  await res.text()
  if (!res.ok) throw new Error(`GET ${url.split("?")[0]}: ${res.status}`)
  return performance.now() - started
}

/** Runs `tasks` with at most `limit` at once; answers the wall seconds. */
const pool = async (tasks: ReadonlyArray<() => Promise<unknown>>, limit: number) => {
  const started = performance.now()
  let next = 0
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < tasks.length) await tasks[next++]!()
  }))
  return (performance.now() - started) / 1000
}

const sortedPercentile = (xs: ReadonlyArray<number>, p: number) => percentile([...xs].sort((a, b) => a - b), p)

/** One page of 100 orders, whole and trimmed to `_fields=id,date_modified_gmt`, SAMPLES times each, alternating. */
const SAMPLES = 9
const fieldsCost = async (sign: ReturnType<typeof signer>) => {
  const page = async (params: Record<string, string>) => {
    const started = performance.now()
    const res = await fetch(sign("/orders", { per_page: "100", page: "1", orderby: "id", order: "asc", ...params }))
    const bytes = (await res.arrayBuffer()).byteLength
    return { ms: performance.now() - started, bytes }
  }
  const whole: Array<{ ms: number; bytes: number }> = []
  const trimmed: Array<{ ms: number; bytes: number }> = []
  for (let i = 0; i < SAMPLES; i++) {
    whole.push(await page({}))
    trimmed.push(await page({ _fields: "id,date_modified_gmt" }))
  }
  return {
    wholeMs: Math.round(sortedPercentile(whole.map((w) => w.ms), 50)), wholeBytes: whole[0]!.bytes,
    trimmedMs: Math.round(sortedPercentile(trimmed.map((t) => t.ms), 50)), trimmedBytes: trimmed[0]!.bytes
  }
}

const p95 = (ms: ReadonlyArray<number>) => Math.round(sortedPercentile(ms, 95))

const visits = async (home: string) => {
  const ms: number[] = []
  for (let i = 0; i < VISITS; i++) ms.push(await fetchText(home))
  return ms
}

/** A run's rows per second, from the summary the CLI prints. */
const rowsPerSecond = (stdout: string) => {
  const summary = /run \d+: (\d+) rows, (\d+) requests in ([\d.]+) s/.exec(stdout)
  if (summary === null) throw new Error(`no run summary in the backfill's output:\n${stdout}`)
  return Number(summary[1]) / Number(summary[3])
}

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits

export const shopLoad = async (store: RealStore, seeded: number, backfill: Backfill): Promise<LoadFigures> => {
  const orders = await topUp(store, seeded, LOAD_ORDERS)
  const sign = signer(store)
  const pages = Math.ceil(orders / 100)
  const bare: Record<string, number> = {}
  const bareShopMs: Record<string, number> = {}
  const listing = (rounds: number) => Array.from({ length: pages * rounds }, (_, i) => () =>
    fetchText(sign("/orders", { per_page: "100", page: String((i % pages) + 1), orderby: "id", order: "asc" })))
  // Once untimed: the orders just added are still being written out by MariaDB, and PHP's caches are cold.
  await pool(listing(1), 2)
  for (const limit of [1, 2, 4, 8]) {
    const tasks = listing(ROUNDS)
    const cpuBefore = shopCpuSeconds(store.dir)
    bare[String(limit)] = round((orders * ROUNDS) / (await pool(tasks, limit)))
    bareShopMs[String(limit)] = ((shopCpuSeconds(store.dir) - cpuBefore) * 1000) / (orders * ROUNDS)
  }
  const [best, capacity] = Object.entries(bare).reduce((a, b) => (b[1] > a[1] ? b : a))
  const fields = await fieldsCost(sign)
  const rates: number[] = []
  const spent = { shop: 0, cli: 0, postgres: 0 }
  for (let i = 0; i < BACKFILLS; i++) {
    const cpuBefore = shopCpuSeconds(store.dir)
    const run = await backfill("orders")
    spent.shop += shopCpuSeconds(store.dir) - cpuBefore
    spent.cli += run.cpu.cli
    spent.postgres += run.cpu.postgres
    rates.push(rowsPerSecond(run.stdout))
  }
  const backfillRate = round(sortedPercentile(rates, 50))
  const perOrder = (seconds: number) => round((seconds * 1000) / (orders * BACKFILLS), 2)
  const backfillCpuMsPerOrder = { shop: perOrder(spent.shop), cli: perOrder(spent.cli), postgres: perOrder(spent.postgres) }
  const cpuMsPerOrder = backfillCpuMsPerOrder.shop + backfillCpuMsPerOrder.cli + backfillCpuMsPerOrder.postgres
  const machineBound = round((os.cpus().length * 1000) / cpuMsPerOrder / capacity, 2)

  const home = store.apiUrl.replace(/\/wp-json\/wc\/v3$/, "/")
  const idle = await visits(home)
  const loaded = async (env: Record<string, string>) => {
    let stop = false
    const rates: number[] = []
    const load = (async () => {
      while (!stop) rates.push(rowsPerSecond((await backfill("orders,refunds,products,customers", env)).stdout))
    })()
    const ms = await visits(home)
    stop = true
    await load
    return { p95: p95(ms), rates }
  }
  const busy = await loaded({})
  const polite = await loaded({ STORE_CONCURRENCY: "1" })
  const visitorP95Ms = { idle: p95(idle), duringBackfill: busy.p95, duringOneInFlight: polite.p95 }
  return {
    orders, bareOrdersPerSecond: bare, capacityOrdersPerSecond: capacity, bareShopCpuMsPerOrder: round(bareShopMs[best]!, 2),
    backfillOrdersPerSecond: backfillRate, backfillCpuMsPerOrder, shareOfCapacity: round(backfillRate / capacity, 2), machineBound, visitorP95Ms,
    visitorSlowdown: round(busy.p95 / visitorP95Ms.idle, 2), backfills: busy.rates.length, fields,
    oneInFlight: { visitorSlowdown: round(polite.p95 / visitorP95Ms.idle, 2), ordersPerSecond: round(sortedPercentile(polite.rates, 50)) }
  }
}

export const reportShopLoad = (f: LoadFigures) => {
  const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`
  console.log(`  a page of 100 orders: ${f.fields.wholeMs} ms and ${kb(f.fields.wholeBytes)} whole, ` +
    `${f.fields.trimmedMs} ms and ${kb(f.fields.trimmedBytes)} with _fields=id,date_modified_gmt (the reconciliation's listing; ` +
    `a sync stores whole documents, so it cannot trim them)`)
  console.log(`  the shop's capacity for the order listing (a bare client, pages of 100 by id): ` +
    `${Object.entries(f.bareOrdersPerSecond).map(([c, r]) => `${r} orders/s at ${c} in flight`).join(", ")}`)
  const cpu = f.backfillCpuMsPerOrder
  const percent = (x: number) => `${Math.round(x * 100)} %`
  console.log(`  a backfill of the ${f.orders} orders with default settings (median of ${BACKFILLS}): ${f.backfillOrdersPerSecond} orders/s, ` +
    `${percent(f.shareOfCapacity)} of the shop's best (target ≥ 80 %: ${f.shareOfCapacity >= 0.8 ? "met" : "not met"})`)
  console.log(`  what limits it: the shop, the sync and its warehouse share this machine's ${os.cpus().length} cores. An order costs the shop ` +
    `${f.bareShopCpuMsPerOrder} ms of CPU bare (${round((f.capacityOrdersPerSecond * f.bareShopCpuMsPerOrder) / 1000, 1)} cores at its best), ` +
    `${cpu.shop} ms during the backfills, the CLI ${cpu.cli} ms and PostgreSQL ${cpu.postgres} ms: no client gets more than ` +
    `${percent(Math.min(1, f.machineBound))} of the shop's best here` +
    (f.machineBound < 1 ? `, and the sync gets ${percent(f.shareOfCapacity / f.machineBound)} of that` : ""))
  console.log(`  a visitor's storefront page, p95: ${f.visitorP95Ms.idle} ms idle, ${f.visitorP95Ms.duringBackfill} ms during ` +
    `${f.backfills} backfills of the sales streams: ${f.visitorSlowdown}× (target ≤ 1.5×: ${f.visitorSlowdown <= 1.5 ? "met" : "not met"})`)
  console.log(`  what limits it: the shop's ${f.bareOrdersPerSecond["1"]} orders/s at 1 in flight against ${f.capacityOrdersPerSecond} at its best say ` +
    `its PHP answers about ${round(f.capacityOrdersPerSecond / f.bareOrdersPerSecond["1"]!, 1)} requests at once before they queue: a sync that ` +
    `takes that much of it leaves the visitors none. With STORE_CONCURRENCY=1 the backfills ran at ${f.oneInFlight.ordersPerSecond} orders/s ` +
    `(${percent(f.oneInFlight.ordersPerSecond / f.capacityOrdersPerSecond)} of the shop's best) and the visitors' p95 was ` +
    `${f.visitorP95Ms.duringOneInFlight} ms, ${f.oneInFlight.visitorSlowdown}×` +
    (f.oneInFlight.visitorSlowdown <= 1.5 && f.oneInFlight.ordersPerSecond < 0.8 * f.capacityOrdersPerSecond
      ? ": on a shop this small, one setting cannot meet both targets"
      : ""))
}
