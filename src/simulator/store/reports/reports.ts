// /reports. The sales report follows WooCommerce's legacy report: orders bucketed by their local created day
// (or month over ranges longer than three months), counted statuses completed, processing, on-hold and refunded,
// all currencies summed together; per-bucket refunds by each refund's own local day; total_refunds by the parent
// order (seed part 2, §2.14), so the two can disagree when an order's refunds straddle the range.
import { json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { COUPONS, COUPON_TYPE_NAMES, ORDER_STATUS_NAMES } from "../catalog.ts"
import { DAY, formatSeconds } from "../dates.ts"
import { COUNTED_STATUSES, type OrderStatus } from "../model.ts"
import { formatMoney } from "../money.ts"
import { discountOf, sumOf } from "../orders/pricing.ts"
import { links } from "../rest/render.ts"

interface ReportRange {
  /** Wall seconds of the first day's midnight and of the day after the last day. */
  start: number
  end: number
  groupBy: "day" | "month"
  keys: string[]
}

const monthStart = (wall: number, plusMonths = 0): number => {
  const d = new Date(wall * 1000)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + plusMonths, 1) / 1000
}

/** PHP's strtotime("+k MONTH"): day-of-month overflow rolls into the next month. */
const plusMonths = (wall: number, k: number): number => {
  const d = new Date(wall * 1000)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + k, d.getUTCDate()) / 1000
}

const rangeOf = (first: number, last: number, groupBy: "day" | "month"): ReportRange => {
  const keys: string[] = []
  if (groupBy === "day") for (let t = first; t <= last; t += DAY) keys.push(formatSeconds(t).slice(0, 10))
  else for (let t = monthStart(first); t <= last; t = monthStart(t, 1)) keys.push(formatSeconds(t).slice(0, 7))
  return { start: first, end: last + DAY, groupBy, keys }
}

/** WC_Admin_Report::calculate_current_range for the REST periods, or the custom date_min/date_max range. */
const readRange = (ctx: RequestContext, defaultPeriod: "week" | undefined): ReportRange => {
  const p = ctx.args()
  p.oneOf("context", ["view"])
  const period = p.oneOf("period", ["week", "month", "last_month", "year"]) ?? (p.has("date_min") || p.has("date_max") ? undefined : defaultPeriod)
  const min = p.day("date_min")
  const max = p.day("date_max")
  p.check()
  const s = ctx.state
  const today = Math.floor(s.site.wall(s.now()) / DAY) * DAY
  switch (period) {
    case "week":
      return rangeOf(today - 6 * DAY, today, "day")
    case "month":
      return rangeOf(monthStart(today), today, "day")
    case "last_month":
      return rangeOf(monthStart(today, -1), monthStart(today) - DAY, "day")
    case "year": {
      const year = new Date(today * 1000).getUTCFullYear()
      return rangeOf(Date.UTC(year, 0, 1) / 1000, today, "month")
    }
    case undefined: {
      if (min === undefined && max === undefined) return rangeOf(today, today, "day")
      // Like strtotime("") in WooCommerce, a missing start reaches back twenty years.
      const first = min ?? plusMonths(today, -240)
      const last = max ?? today
      let months = 0
      while (plusMonths(first, months + 1) <= last) months++
      return rangeOf(first, last, months > 3 ? "month" : "day")
    }
  }
}

interface Bucket {
  sales: number
  orders: number
  items: number
  tax: number
  shipping: number
  discount: number
  customers: number
  refunds: number
}

const salesReport: Handler = (ctx) => {
  const s = ctx.state
  const range = readRange(ctx, undefined)
  const width = range.groupBy === "day" ? 10 : 7
  const buckets = new Map<string, Bucket>(range.keys.map((k) => [k, { sales: 0, orders: 0, items: 0, tax: 0, shipping: 0, discount: 0, customers: 0, refunds: 0 }]))
  const byDay = new Map<number, Bucket | undefined>()
  const bucketOf = (utc: number): Bucket | undefined => {
    const wall = s.site.wall(utc)
    if (wall < range.start || wall >= range.end) return undefined
    const day = Math.floor(wall / DAY)
    if (!byDay.has(day)) byDay.set(day, buckets.get(formatSeconds(day * DAY).slice(0, width)))
    return byDay.get(day)
  }

  for (const o of s.liveOrders.by.id.items) {
    if (!COUNTED_STATUSES.has(o.status)) continue
    const b = bucketOf(o.created)
    if (b === undefined) continue
    b.sales += o.total
    b.orders += 1
    b.items += sumOf(o.line_items, (l) => l.quantity)
    b.tax += sumOf(o.line_items, (l) => l.tax) + o.shippingTax
    b.shipping += o.shipping
    b.discount += discountOf(o).discount
  }
  for (const c of s.customerById.values()) {
    const b = bucketOf(c.created)
    if (b !== undefined) b.customers += 1
  }
  let partialRefunds = 0
  const fullyRefunded = new Set<number>()
  for (const f of s.refundIndex.by.id.items) {
    const order = s.orderById.get(f.orderId)!
    if (!COUNTED_STATUSES.has(order.status)) continue
    const b = bucketOf(f.created)
    if (b === undefined) continue
    b.refunds += f.amount
    if (order.status === "refunded") fullyRefunded.add(order.id)
    else partialRefunds += f.amount
  }
  const totalRefunds = partialRefunds + [...fullyRefunded].reduce((sum, id) => sum + s.orderById.get(id)!.total, 0)

  const all = [...buckets.values()]
  const sum = (k: keyof Bucket) => all.reduce((acc, b) => acc + b[k], 0)
  const net = sum("sales") - sum("refunds")
  const money = (c: number) => formatMoney(c, 2)
  const r = ctx.render(2)
  return json(200, [
    {
      total_sales: money(sum("sales")),
      net_sales: money(net),
      average_sales: money(Math.round(net / all.length)),
      total_orders: sum("orders"),
      total_items: sum("items"),
      total_tax: money(sum("tax")),
      total_shipping: money(sum("shipping")),
      total_refunds: totalRefunds / 100,
      total_discount: money(sum("discount")),
      totals_grouped_by: range.groupBy,
      totals: Object.fromEntries(
        [...buckets].map(([key, b]) => [
          key,
          { sales: money(b.sales), orders: b.orders, items: b.items, tax: money(b.tax), shipping: money(b.shipping), discount: money(b.discount), customers: b.customers, refunds: money(b.refunds) },
        ]),
      ),
      total_customers: sum("customers"),
      _links: links(r, { about: "/reports" }),
    },
  ])
}

const TOP_SELLER_STATUSES: ReadonlySet<OrderStatus> = new Set(["completed", "processing", "on-hold"])

const topSellers: Handler = (ctx) => {
  const s = ctx.state
  const range = readRange(ctx, "week")
  const quantities = new Map<number, number>()
  for (const o of s.liveOrders.by.id.items) {
    if (!TOP_SELLER_STATUSES.has(o.status)) continue
    const wall = s.site.wall(o.created)
    if (wall < range.start || wall >= range.end) continue
    for (const l of o.line_items) quantities.set(l.productId, (quantities.get(l.productId) ?? 0) + l.quantity)
  }
  const r = ctx.render(2)
  const top = [...quantities].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 12)
  return json(
    200,
    top.map(([productId, quantity]) => {
      const name = s.productById.get(productId)?.name ?? ""
      return { name, title: name, product_id: productId, quantity, _links: links(r, { about: "/reports", product: `/products/${productId}` }) }
    }),
  )
}

const totals = (entries: ReadonlyArray<[slug: string, name: string, total: number]>) => entries.map(([slug, name, total]) => ({ slug, name, total: String(total) }))

const countBy = <T>(items: Iterable<T>, key: (t: T) => string): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1)
  return counts
}

const REPORTS: ReadonlyArray<[string, string]> = [
  ["sales", "List of sales reports."],
  ["top_sellers", "List of top sellers products."],
  ["orders/totals", "Orders totals."],
  ["products/totals", "Products totals."],
  ["customers/totals", "Customers totals."],
  ["coupons/totals", "Coupons totals."],
  ["reviews/totals", "Reviews totals."],
]

export const registerReports = (router: Router<Handler>): void => {
  router
    .add("GET", "/reports", (ctx) => {
      const r = ctx.render(2)
      return json(200, REPORTS.map(([slug, description]) => ({ slug, description, _links: links(r, { self: `/reports/${slug}`, collection: "/reports" }) })))
    })
    .add("GET", "/reports/sales", salesReport)
    .add("GET", "/reports/top_sellers", topSellers)
    .add("GET", "/reports/orders/totals", (ctx) => {
      const counts = countBy(ctx.state.liveOrders.by.id.items, (o) => o.status)
      return json(200, totals(Object.entries(ORDER_STATUS_NAMES).map(([slug, name]) => [slug, name, counts.get(slug) ?? 0])))
    })
    .add("GET", "/reports/customers/totals", (ctx) => {
      const counts = countBy(ctx.state.customerById.values(), (c) => (c.isPaying ? "paying" : "non_paying"))
      return json(200, totals([["paying", "Paying customer", counts.get("paying") ?? 0], ["non_paying", "Non-paying customer", counts.get("non_paying") ?? 0]]))
    })
    .add("GET", "/reports/coupons/totals", () => {
      const counts = countBy(COUPONS, (c) => c.type)
      return json(200, totals(Object.entries(COUPON_TYPE_NAMES).map(([slug, name]) => [slug, name, counts.get(slug) ?? 0])))
    })
    .add("GET", "/reports/products/totals", (ctx) => {
      const counts = countBy(ctx.state.productById.values(), (p) => p.type)
      const types: [string, string][] = [["external", "External/Affiliate product"], ["grouped", "Grouped product"], ["simple", "Simple product"], ["variable", "Variable product"]]
      return json(200, totals(types.map(([slug, name]) => [slug, name, counts.get(slug) ?? 0])))
    })
    .add("GET", "/reports/reviews/totals", (ctx) => {
      const counts = [0, 0, 0, 0, 0]
      for (const p of ctx.state.productById.values()) p.ratings.forEach((n, i) => (counts[i]! += n))
      return json(200, totals(counts.map((n, i) => [`rated_${i + 1}_out_of_5`, `Rated ${i + 1} out of 5`, n])))
    })
}
