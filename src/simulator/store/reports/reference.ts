// THE INDEPENDENT REFERENCE: per-day net sales computed straight from the definition over the simulator's
// in-memory records, sharing no code with the API rendering, the reports or any database.
//
// Counted order: status processing, completed, on-hold or refunded (so not trashed), and still present (a
// force-deleted order is gone from the state). Its day is the date part of its LOCAL date_created.
// gross_sales = Σ total of the counted orders of that day, per currency; orders_count = their number.
// refunds = Σ amount of the existing refunds of counted orders, each on the date part of the refund's own LOCAL
// date_created, in the parent order's currency. net_sales = gross_sales − refunds. One row per (day, currency)
// with a sale or a refund. Money is summed in integer cents.
import type { StoreState } from "../state.ts"

export interface DailyNetSalesRow {
  day: string
  currency: string
  orders_count: number
  gross_sales: string
  refunds: string
  net_sales: string
}

const COUNTED = new Set(["processing", "completed", "on-hold", "refunded"])

const cents = (n: number): string => {
  const sign = n < 0 ? "-" : ""
  const abs = Math.abs(n)
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`
}

export const dailyNetSales = (state: StoreState): DailyNetSalesRow[] => {
  const format = new Intl.DateTimeFormat("en-CA", { timeZone: state.site.timezone, year: "numeric", month: "2-digit", day: "2-digit" })
  // The local date only changes on quarter-hour boundaries of UTC in every current zone.
  const days = new Map<number, string>()
  const localDay = (epochSeconds: number): string => {
    const quarter = Math.floor(epochSeconds / 900)
    let day = days.get(quarter)
    if (day === undefined) {
      day = format.format(new Date(quarter * 900 * 1000))
      days.set(quarter, day)
    }
    return day
  }

  const rows = new Map<string, { day: string; currency: string; orders: number; gross: number; refunds: number }>()
  const row = (day: string, currency: string) => {
    const key = `${day} ${currency}`
    let r = rows.get(key)
    if (r === undefined) rows.set(key, (r = { day, currency, orders: 0, gross: 0, refunds: 0 }))
    return r
  }

  for (const order of state.orderById.values()) {
    if (!COUNTED.has(order.status)) continue
    const r = row(localDay(order.created), order.currency)
    r.orders += 1
    r.gross += order.total
  }
  for (const refund of state.refundById.values()) {
    const order = state.orderById.get(refund.orderId)
    if (order === undefined || !COUNTED.has(order.status)) continue
    row(localDay(refund.created), order.currency).refunds += refund.amount
  }

  return [...rows.values()]
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0))
    .map((r) => ({
      day: r.day,
      currency: r.currency,
      orders_count: r.orders,
      gross_sales: cents(r.gross),
      refunds: cents(r.refunds),
      net_sales: cents(r.gross - r.refunds),
    }))
}
