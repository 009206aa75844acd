/**
 * Issue 19's figures on a real WooCommerce (the shop of ../shared/real-woo), for each order storage: orders lost by
 * first syncs of a shop whose bulk edits leave pages ending inside a crowded second (each first sync is a store id
 * of its own in one warehouse, so each walks the shop from nothing, meeting MariaDB's tie order of its moment),
 * days exact after a day of changes and after changes made during a sync, with default settings, the requests of a
 * no-change sync, and what a reconciliation (`shopsync verify`) costs. Expected figures are the shop's own data,
 * read through WooCommerce's PHP API (test/real-woo/php/snapshot.php).
 */
import { describeDifference, type Difference, difference } from "../test/real-woo/compare.js"
import { busyShop, changeShop, SHOP_SHAPE, seedShop, snapshotShop, storeEnv } from "../test/real-woo/shop.js"
import type { Rows } from "../test/support/net-sales.js"
import { realWooMissing, type RealStore, startRealStore } from "../test/support/real-woo.js"
import { served } from "./real-shop.js"

/** One CLI run against the shop: its wall seconds, exit code and the tails of its output. */
export type Cli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Promise<{ readonly seconds: number; readonly code: number; readonly stdout: string; readonly stderr: string }>

export interface Checked {
  readonly storeId: string
  readonly ordersMissing: number
  readonly ordersExtra: number
  readonly refundsMissing: number
  readonly refundsExtra: number
  readonly daysWrong: number
  readonly days: number
  readonly requests: number
  readonly seconds: number
}

export interface StorageFigures {
  readonly storage: "HPOS" | "posts"
  readonly seed: number
  readonly orders: number
  readonly firstSyncs: ReadonlyArray<Checked>
  /** Every store id synced once more after a day of changes (trash, untrash, deletions, refunds, a bulk edit). */
  readonly afterChanges: ReadonlyArray<Checked>
  /** The first store id synced while the shop changed, then once more. */
  readonly duringChanges: Checked
  readonly noChange: { readonly requests: number; readonly seconds: number }
  readonly reconciliation: { readonly requests: number; readonly seconds: number; readonly exitCode: number }
}

export interface ExactFigures {
  readonly storages: ReadonlyArray<StorageFigures>
  readonly firstSyncs: number
  readonly ordersLost: number
}

const SEEDS = { HPOS: 7, posts: 21 } as const
const settled = () => new Promise((resolve) => setTimeout(resolve, 3_000))

const check = async (store: RealStore, rows: Rows, storeId: string, run: () => Promise<{ seconds: number }>): Promise<Checked> => {
  const before = served(store).length
  const { seconds } = await run()
  const requests = served(store).length - before
  const shop = await snapshotShop(store)
  const d: Difference = await difference(rows, storeId, shop)
  console.error(`  ${storeId}: ${describeDifference(shop, d)}; ${requests} requests in ${seconds.toFixed(1)} s`)
  return {
    storeId, ordersMissing: d.ordersMissing.length, ordersExtra: d.ordersExtra.length, refundsMissing: d.refundsMissing.length,
    refundsExtra: d.refundsExtra.length, daysWrong: d.daysWrong.length, days: (await netDays(rows, storeId)), requests, seconds
  }
}

const netDays = async (rows: Rows, storeId: string) =>
  Number((await rows<{ n: string }>("SELECT count(*) AS n FROM analytics.daily_net_sales WHERE store_id = $1", [storeId]))[0]?.n ?? 0)

const storage = async (hpos: boolean, cli: Cli, rows: Rows, firstSyncs: number): Promise<StorageFigures> => {
  const name = hpos ? "HPOS" : "posts"
  const store = await startRealStore({ hpos })
  try {
    const seeded = await seedShop(store, { seed: SEEDS[name], ...SHOP_SHAPE })
    await settled()
    const env = (storeId: string) => storeEnv(store, storeId)
    const sync = (storeId: string) => async () => {
      const run = await cli(["sync", "--no-push"], env(storeId))
      if (run.code !== 0) throw new Error(`shopsync sync (${storeId}) exited ${run.code}:\n${run.stderr}`)
      return run
    }
    const ids = Array.from({ length: firstSyncs }, (_, i) => `exact-${name.toLowerCase()}-${i + 1}`)
    console.error(`real shop, ${name} storage: ${firstSyncs} first syncs`)
    const first: Checked[] = []
    for (const id of ids) first.push(await check(store, rows, id, sync(id)))
    console.error(`  a day of changes, then every store id synced again`)
    await changeShop(store, { seed: 11, bulk: 150 })
    await settled()
    const after: Checked[] = []
    for (const id of ids) after.push(await check(store, rows, id, sync(id)))
    console.error(`  a sync while the shop changes, then one more`)
    const busy = busyShop(store, { seed: 13, rounds: 10, pause_ms: 700 })
    await sync(ids[0]!)()
    await busy
    await settled()
    const during = await check(store, rows, ids[0]!, sync(ids[0]!))
    const noChange = await check(store, rows, ids[0]!, sync(ids[0]!))
    const before = served(store).length
    const verify = await cli(["verify"], env(ids[0]!))
    return {
      storage: name, seed: SEEDS[name], orders: seeded.orders, firstSyncs: first, afterChanges: after, duringChanges: during,
      noChange: { requests: noChange.requests, seconds: noChange.seconds },
      reconciliation: { requests: served(store).length - before, seconds: verify.seconds, exitCode: verify.code }
    }
  } finally {
    await store.stop()
  }
}

/** Undefined when the machine cannot run the shop. `firstSyncs` per storage. */
export const realShopExactBench = async (cli: Cli, rows: Rows, firstSyncs: number): Promise<ExactFigures | undefined> => {
  if (realWooMissing()) return undefined
  const storages = [await storage(true, cli, rows, firstSyncs), await storage(false, cli, rows, firstSyncs)]
  const all = storages.flatMap((s) => s.firstSyncs)
  return { storages, firstSyncs: all.length, ordersLost: all.reduce((n, c) => n + c.ordersMissing, 0) }
}

const wrong = (checks: ReadonlyArray<Checked>) => checks.reduce((n, c) => n + c.daysWrong, 0)
const days = (checks: ReadonlyArray<Checked>) => checks.reduce((n, c) => n + c.days, 0)
const drift = (c: Checked) => c.ordersMissing + c.ordersExtra + c.refundsMissing + c.refundsExtra

export const reportRealShopExact = (f: ExactFigures | undefined) => {
  if (f === undefined) return console.log("\nreal shop exactness: skipped (PHP and MariaDB not available: ../shared/real-woo/start.sh installs them)")
  console.log(`\nreal shop exactness (WooCommerce 10.0.2, default settings):`)
  console.log(`  orders lost by ${f.firstSyncs} first syncs: ${f.ordersLost} (target 0: ${f.ordersLost === 0 ? "met" : "not met"})`)
  for (const s of f.storages) {
    const firstRequests = s.firstSyncs.map((c) => c.requests)
    console.log(`  ${s.storage} (seed ${s.seed}, ${s.orders} orders): first syncs ${s.firstSyncs.length}, rows off ${s.firstSyncs.map(drift).join("/")}, ` +
      `(day, currency) rows wrong ${wrong(s.firstSyncs)} of ${days(s.firstSyncs)}, ${Math.min(...firstRequests)}–${Math.max(...firstRequests)} requests each`)
    console.log(`    after a day of changes: rows off ${s.afterChanges.map(drift).join("/")}, days wrong ${wrong(s.afterChanges)} of ${days(s.afterChanges)}; ` +
      `after changes during a sync: rows off ${drift(s.duringChanges)}, days wrong ${s.duringChanges.daysWrong} of ${s.duringChanges.days}`)
    console.log(`    no-change sync: ${s.noChange.requests} requests (target ≤ 10: ${s.noChange.requests <= 10 ? "met" : "not met"}); ` +
      `reconciliation: ${s.reconciliation.requests} requests in ${s.reconciliation.seconds.toFixed(1)} s, exit ${s.reconciliation.exitCode} (${s.reconciliation.exitCode === 0 ? "no drift" : "drift"})`)
  }
}
