/**
 * The shop's capacity and its other visitors (issue 23, item 2), on the real shop after real-shop.ts's syncs:
 * - capacity: a bare client (OAuth 1.0a, nothing else) reads the order listing in pages of 100 by id at 1, 2, 4 and 8
 *   requests in flight, several rounds each; the best orders per second is what the shop can serve. A backfill of the
 *   orders by shopsync with default settings is measured against it (its own run time, from its summary);
 * - _fields: a page of 100 orders whole and trimmed to the ids and dates the reconciliation reads, median of 9 each;
 * - visitors: the storefront's home page (`GET /`, PHP rendering a page as for a customer) one request after another,
 *   idle, then while backfills of the sales streams run back to back; the p95 of each, and their ratio.
 */
import { createHmac } from "node:crypto"
import OAuth from "oauth-1.0a"
import type { RealStore } from "../test/support/real-woo.js"
import { percentile } from "./freshness.js"

/** A backfill of `streams` (comma-separated) by the CLI: its exit code and output (the run's summary on stdout). */
export type Backfill = (streams: string) => Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>

export interface LoadFigures {
  readonly orders: number
  /** Orders per second a bare client reads at each concurrency. */
  readonly bareOrdersPerSecond: Readonly<Record<string, number>>
  readonly capacityOrdersPerSecond: number
  readonly backfillOrdersPerSecond: number
  /** The backfill's share of the shop's capacity (target ≥ 0.8). */
  readonly shareOfCapacity: number
  readonly visitorP95Ms: { readonly idle: number; readonly duringBackfill: number }
  /** p95 during backfills over p95 idle (target ≤ 1.5). */
  readonly visitorSlowdown: number
  readonly backfills: number
  /** A page of 100 orders, median ms and bytes: whole, and trimmed to what the reconciliation reads (`_fields`). */
  readonly fields: { readonly wholeMs: number; readonly wholeBytes: number; readonly trimmedMs: number; readonly trimmedBytes: number }
}

const ROUNDS = 4
const VISITS = 40

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

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits

export const shopLoad = async (store: RealStore, orders: number, backfill: Backfill): Promise<LoadFigures> => {
  const sign = signer(store)
  const pages = Math.ceil(orders / 100)
  const bare: Record<string, number> = {}
  for (const limit of [1, 2, 4, 8]) {
    const tasks = Array.from({ length: pages * ROUNDS }, (_, i) => () =>
      fetchText(sign("/orders", { per_page: "100", page: String((i % pages) + 1), orderby: "id", order: "asc" })))
    bare[String(limit)] = round((orders * ROUNDS) / (await pool(tasks, limit)))
  }
  const capacity = Math.max(...Object.values(bare))
  const fields = await fieldsCost(sign)
  const run = await backfill("orders")
  const summary = /run \d+: (\d+) rows, (\d+) requests in ([\d.]+) s/.exec(run.stdout)
  if (run.code !== 0 || summary === null) throw new Error(`backfill exited ${run.code}:\n${run.stderr}\n${run.stdout}`)
  const backfillRate = round(Number(summary[1]) / Number(summary[3]))

  const home = store.apiUrl.replace(/\/wp-json\/wc\/v3$/, "/")
  const idle = await visits(home)
  let stop = false
  let backfills = 0
  const load = (async () => {
    while (!stop) {
      const r = await backfill("orders,refunds,products,customers")
      if (r.code !== 0) throw new Error(`backfill exited ${r.code}:\n${r.stderr}`)
      backfills++
    }
  })()
  const busy = await visits(home)
  stop = true
  await load
  const visitorP95Ms = { idle: p95(idle), duringBackfill: p95(busy) }
  return {
    orders, bareOrdersPerSecond: bare, capacityOrdersPerSecond: capacity, backfillOrdersPerSecond: backfillRate,
    shareOfCapacity: round(backfillRate / capacity, 2), visitorP95Ms, visitorSlowdown: round(visitorP95Ms.duringBackfill / visitorP95Ms.idle, 2), backfills, fields
  }
}

export const reportShopLoad = (f: LoadFigures) => {
  const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`
  console.log(`  a page of 100 orders: ${f.fields.wholeMs} ms and ${kb(f.fields.wholeBytes)} whole, ` +
    `${f.fields.trimmedMs} ms and ${kb(f.fields.trimmedBytes)} with _fields=id,date_modified_gmt (the reconciliation's listing; ` +
    `a sync stores whole documents, so it cannot trim them)`)
  console.log(`  the shop's capacity for the order listing (a bare client, pages of 100 by id): ` +
    `${Object.entries(f.bareOrdersPerSecond).map(([c, r]) => `${r} orders/s at ${c} in flight`).join(", ")}`)
  console.log(`  a backfill of the orders with default settings: ${f.backfillOrdersPerSecond} orders/s, ` +
    `${Math.round(f.shareOfCapacity * 100)} % of the shop's best (target ≥ 80 %: ${f.shareOfCapacity >= 0.8 ? "met" : "not met"})`)
  console.log(`  a visitor's storefront page, p95: ${f.visitorP95Ms.idle} ms idle, ${f.visitorP95Ms.duringBackfill} ms during ` +
    `${f.backfills} backfills of the sales streams: ${f.visitorSlowdown}× (target ≤ 1.5×: ${f.visitorSlowdown <= 1.5 ? "met" : "not met"})`)
}
