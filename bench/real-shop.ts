/**
 * Requests a sync costs a real WooCommerce (issue 23): the shop of ../shared/real-woo, seeded as the real-store tests
 * seed it (420 orders over 60 days, refunds, trash, two bulk edits), synced by the compiled CLI with every stream, then
 * once more with nothing changed. What the shop served is counted from its own log (DIR/rest.log, one line per REST
 * request), by route: the sales listings, the per-parent children (notes, downloads, variations…), the rest.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { SHOP_SHAPE, seedShop, storeEnv } from "../test/real-woo/shop.js"
import type { Rows } from "../test/support/net-sales.js"
import { realWooMissing, type RealStore, startRealStore } from "../test/support/real-woo.js"
import { type Backfill, type LoadFigures, reportShopLoad, shopLoad } from "./real-shop-load.js"

interface Served {
  readonly route: string
  readonly params: Record<string, unknown>
}

/** The routes of the sales streams' listings and the store's report, against those read once per parent. */
const SALES = /^\/wc\/v3\/(orders|refunds|products|customers|reports\/sales)$/
const CHILDREN = /^\/wc\/v3\/(orders|customers|products|products\/attributes|shipping\/zones)\/\d+\/[a-z_]+$/

export interface RealShopRun {
  readonly requests: number
  readonly sales: number
  readonly children: number
  readonly other: number
  readonly seconds: number
  /** Requests by route (ids replaced by `<id>`), most first. */
  readonly routes: Readonly<Record<string, number>>
  /** The order listings' queries (credentials left out by the shop's log), to see what each page was for. */
  readonly orderListings: ReadonlyArray<string>
}

export interface RealShopFigures {
  readonly orders: number
  readonly first: RealShopRun
  readonly noChange: RealShopRun
  /** Sales listings per 100 orders of a first sync (target ≤ 1.2), children requests per order (target ≤ 0.1). */
  readonly salesPer100Orders: number
  readonly childrenPerOrder: number
  /** The order notes pass of the first sync per order: the children pass the target is about. */
  readonly notesPassPerOrder: number
  /**
   * The fewest sales requests any reader of the API could make for the rows the first sync loaded: each listing's
   * rows in pages of 100 (an empty listing still one request), the store's report, the clock.
   */
  readonly pagingFloor: number
  /** The shop's capacity, a backfill's share of it, and what the shop's visitors see meanwhile. */
  readonly load: LoadFigures
}

/** The sales listings a first sync reads, as warehouse rows: each is paged by 100 at best. */
const LISTINGS = [
  "SELECT count(*) FILTER (WHERE status <> 'trash') AS n, count(*) FILTER (WHERE status = 'trash') AS t FROM store.orders WHERE store_id = $1",
  "SELECT count(*) AS n, NULL AS t FROM store.refunds WHERE store_id = $1",
  "SELECT count(*) FILTER (WHERE status IS DISTINCT FROM 'trash') AS n, count(*) FILTER (WHERE status = 'trash') AS t FROM store.products WHERE store_id = $1 AND parent_id = 0",
  "SELECT count(*) AS n, NULL AS t FROM store.customers WHERE store_id = $1"
]

const pagingFloor = async (rows: Rows, storeId: string) => {
  let floor = 2 // the clock, the store's sales report
  for (const query of LISTINGS) {
    const [r] = await rows<{ n: string; t: string | null }>(query, [storeId])
    for (const count of [r!.n, r!.t]) if (count !== null) floor += Math.max(1, Math.ceil(Number(count) / 100))
  }
  return floor
}

export const served = (store: RealStore): ReadonlyArray<Served> =>
  fs.readFileSync(path.join(store.dir, "rest.log"), "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Served)

const tally = (lines: ReadonlyArray<Served>, seconds: number): RealShopRun => {
  const routes: Record<string, number> = {}
  for (const l of lines) {
    const key = l.route.replace(/\/\d+(?=\/|$)/g, "/<id>")
    routes[key] = (routes[key] ?? 0) + 1
  }
  const sales = lines.filter((l) => SALES.test(l.route)).length
  const children = lines.filter((l) => CHILDREN.test(l.route)).length
  const query = (params: Record<string, unknown>) =>
    ["status", "page", "per_page", "modified_after", "modified_before", "orderby", "_fields"].filter((k) => params[k] !== undefined).map((k) => `${k}=${String(params[k])}`).join("&")
  return {
    requests: lines.length, sales, children, other: lines.length - sales - children, seconds,
    routes: Object.fromEntries(Object.entries(routes).sort((a, b) => b[1] - a[1])),
    orderListings: lines.filter((l) => l.route === "/wc/v3/orders").map((l) => query(l.params))
  }
}

/**
 * Runs the phase with `sync(env)`, which runs `shopsync sync --no-push` against the shop and a fresh warehouse and
 * answers its wall seconds. Undefined when the machine cannot run the shop.
 */
export const realShopBench = async (
  sync: (env: Record<string, string>) => Promise<number>,
  rows: Rows,
  backfill: (env: Record<string, string>) => Backfill
): Promise<RealShopFigures | undefined> => {
  if (realWooMissing()) return undefined
  const store = await startRealStore({ hpos: true })
  try {
    const seeded = await seedShop(store, { seed: 3, ...SHOP_SHAPE })
    const env = storeEnv(store, "real-shop")
    const before = served(store).length
    const firstSeconds = await sync(env)
    const afterFirst = served(store)
    const noChangeSeconds = await sync(env)
    const all = served(store)
    const first = tally(afterFirst.slice(before), firstSeconds)
    const noChange = tally(all.slice(afterFirst.length), noChangeSeconds)
    return {
      orders: seeded.orders,
      first,
      noChange,
      salesPer100Orders: Math.round((first.sales / seeded.orders) * 100 * 100) / 100,
      childrenPerOrder: Math.round((first.children / seeded.orders) * 1000) / 1000,
      notesPassPerOrder: Math.round(((first.routes["/wc/v3/orders/<id>/notes"] ?? 0) / seeded.orders) * 1000) / 1000,
      pagingFloor: await pagingFloor(rows, env.STORE_ID),
      load: await shopLoad(store, seeded.orders, backfill(env))
    }
  } finally {
    await store.stop()
  }
}

export const reportRealShop = (f: RealShopFigures | undefined) => {
  if (f === undefined) return console.log("\nreal shop: skipped (PHP and MariaDB not available: ../shared/real-woo/start.sh installs them)")
  const line = (label: string, r: RealShopRun) =>
    `  ${label}: ${r.requests} requests in ${r.seconds.toFixed(1)} s (sales listings ${r.sales}, per-parent children ${r.children}, other ${r.other})`
  console.log(`\nreal shop (WooCommerce 10.0.2, ${f.orders} orders, every stream):`)
  console.log(line("first sync", f.first))
  console.log(line("no-change sync", f.noChange))
  const floor = Math.round((f.pagingFloor / f.orders) * 100 * 100) / 100
  console.log(`  sales listings per 100 orders: ${f.salesPer100Orders} (target ≤ 1.2: ${f.salesPer100Orders <= 1.2 ? "met" : "not met"}; ` +
    `limited by the API's pages of 100: the rows loaded need ${f.pagingFloor} requests at least, ${floor} per 100 orders, ` +
    `so the sync's overhead is ${f.first.sales - f.pagingFloor} requests)`)
  console.log(`  order notes pass per order: ${f.notesPassPerOrder} (target ≤ 0.1: ${f.notesPassPerOrder <= 0.1 ? "met" : "not met"}); ` +
    `every per-parent read per order: ${f.childrenPerOrder}`)
  reportShopLoad(f.load)
  console.log(`  routes of the first sync: ${Object.entries(f.first.routes).slice(0, 12).map(([r, n]) => `${r} ${n}`).join(", ")}`)
  console.log(`  its order listings:\n${f.first.orderListings.map((q) => `    ${q}`).join("\n")}`)
}
