import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { RealStore } from "../support/real-woo.js"

// The shop is shaped and read through WooCommerce's PHP API (php/*.php), so the expected figures are the
// shop's own, never shopsync's.
const phpDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "php")
const source = (name: string) => fs.readFileSync(path.join(phpDir, name), "utf8")
/** Scripts that write modified dates need the bulk-edit helper defined first. */
const withHelpers = (name: string) => source("modified.php") + source(name)

export interface SeedOptions {
  readonly seed: number
  /** The first store-local day of the window. */
  readonly from: string
  readonly days: number
  readonly count: number
  readonly trash: number
  /** Sizes of the groups of orders that a bulk edit leaves on one modified second each. */
  readonly bulk: ReadonlyArray<number>
}

/** The environment a CLI run against `store` needs, as `store_id`. */
export const storeEnv = (store: RealStore, storeId: string) =>
  ({ STORE_API_URL: store.apiUrl, STORE_CONSUMER_KEY: store.consumerKey, STORE_CONSUMER_SECRET: store.consumerSecret, STORE_ID: storeId })

/**
 * The shop the real-store tests and benchmarks seed: 420 orders over 60 store-local days around the end of summer time
 * in Europe/Paris (2026-10-25), then two bulk edits leaving 150 and 130 orders on one modified second each: with about
 * 130 orders modified before them, pages of 100 end inside both seconds.
 */
export const SHOP_SHAPE = { from: "2026-09-20", days: 60, count: 420, trash: 10, bulk: [150, 130] } as const satisfies Omit<SeedOptions, "seed">

export const seedShop = (store: RealStore, options: SeedOptions) =>
  store.php<{ orders: number; groups: number[][] }>(withHelpers("seed.php"), options)

export const changeShop = (store: RealStore, options: { seed: number; bulk: number }) =>
  store.php<Record<string, unknown>>(withHelpers("changes.php"), options)

/** Runs until its rounds are done: start it, sync meanwhile, then await it. */
export const busyShop = (store: RealStore, options: { seed: number; rounds: number; pause_ms: number }) =>
  store.php<{ rounds: number }>(withHelpers("live.php"), options)

export interface ShopRefund {
  readonly id: number
  readonly amount: string
  readonly day: string
}

export interface ShopOrder {
  readonly id: number
  readonly status: string
  readonly total: string
  readonly currency: string
  readonly day: string
  readonly refunds: ReadonlyArray<ShopRefund>
}

export const snapshotShop = (store: RealStore) => store.php<ShopOrder[]>(source("snapshot.php"))

/** The model's rule (sql/models/intermediate/analytics.counted_orders.sql): these statuses count, trash and the rest do not. */
const COUNTED = new Set(["processing", "completed", "on-hold", "refunded"])

/** "12.34" → 1234; the shop's money strings have two decimals (the store's price decimals). */
const toCents = (amount: string): number => {
  const match = /^(-?)(\d+)\.(\d{2})$/.exec(amount)
  if (match === null) throw new Error(`not a two-decimal amount: ${amount}`)
  const cents = Number(match[2]) * 100 + Number(match[3])
  return match[1] === "-" ? -cents : cents
}

const fromCents = (cents: number): string => {
  const abs = Math.abs(cents)
  return `${cents < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`
}

export interface NetSalesRow {
  readonly day: string
  readonly currency: string
  readonly orders_count: number
  readonly gross_sales: string
  readonly refunds: string
  readonly net_sales: string
}

/**
 * analytics.daily_net_sales as the shop's data says it should read: counted orders on their store-local
 * creation day, the refunds of counted orders each on its own store-local day, in the order's currency; one
 * row per (day, currency) with either. Summed in integer cents.
 */
export const expectedNetSales = (orders: ReadonlyArray<ShopOrder>): NetSalesRow[] => {
  const rows = new Map<string, { day: string; currency: string; orders: number; gross: number; refunds: number }>()
  const row = (day: string, currency: string) => {
    const key = `${day} ${currency}`
    const found = rows.get(key) ?? { day, currency, orders: 0, gross: 0, refunds: 0 }
    rows.set(key, found)
    return found
  }
  for (const order of orders.filter((o) => COUNTED.has(o.status))) {
    const r = row(order.day, order.currency)
    r.orders += 1
    r.gross += toCents(order.total)
    for (const refund of order.refunds) row(refund.day, order.currency).refunds += toCents(refund.amount)
  }
  return [...rows.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => ({
      day: r.day,
      currency: r.currency,
      orders_count: r.orders,
      gross_sales: fromCents(r.gross),
      refunds: fromCents(r.refunds),
      net_sales: fromCents(r.gross - r.refunds)
    }))
}
