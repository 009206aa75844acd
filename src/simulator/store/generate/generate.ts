// Deterministic shop data: the same options give the same records (and so byte-identical API answers).
// Orders are spread over the days with extra ones just around local midnight and DST changes, refunds come
// later (some the same evening, some weeks later, some across midnight), a few orders end in the trash, and
// "bulk edits" give whole batches of orders one shared date_modified second.
import { createRng, type Rng } from "../../http/prng.ts"
import { COUPONS, CURRENCIES, currencyOf, taxRateFor } from "../catalog.ts"
import { DAY, HOUR, SiteTime, parseDay } from "../dates.ts"
import {
  type FeeRecord,
  type OrderRecord,
  type OrderStatus,
  type RefundLineRecord,
  type RefundRecord,
  type StoreData,
  priceOf,
} from "../model.ts"
import { assignRoles, generateCatalogue, generateCustomers } from "./generate-catalogue.ts"
import { generateComments } from "./generate-comments.ts"
import { personFor } from "../people.ts"
import { type LineInput, buildLines, orderTotal, taxOn } from "../orders/pricing.ts"

export interface GenerateOptions {
  seed: number
  orders: number
  /** Default: one per five orders (at least 10). */
  customers?: number
  /** Default: between 12 and 150, growing with the orders. */
  products?: number
  /** Share of orders with at least one refund; default 0.15. */
  refundRate?: number
  /** First local day of created dates, `YYYY-MM-DD`; default 2024-01-01. Not with `endsAt`. */
  start?: string
  /** Days the created dates spread over; default 366 (so both DST changes of the default year are inside). */
  days?: number
  /**
   * Epoch seconds before which everything happens (e.g. now, for a store whose data runs to today): the created dates
   * fill the `days` local days ending with its day, and a completion, refund or edit that would come later has not
   * happened yet (a refund is left out, a date is kept before it). Default: none, the data runs from `start`.
   */
  endsAt?: number
  /** Orders per bulk edit; default 250. */
  burstSize?: number
  /** Number of bulk edits; default 3 from 10 × burstSize orders, 1 from 2 × burstSize, else 0. */
  bursts?: number
  /**
   * Users of other roles than `customer` (subscriber, shop_manager, a shop's own…), as a count per role, spread
   * evenly over the customers; default none. The rest of the store is generated as without it.
   */
  roles?: Readonly<Record<string, number>>
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

const GUEST_SEEDS = 1_000_000

const REASONS = ["", "", "Customer changed their mind", "Item arrived damaged", "Wrong size", "Late delivery", "Duplicate order", "Goodwill gesture"]
const STATUS_WEIGHTS: ReadonlyArray<[OrderStatus, number]> = [
  ["completed", 64],
  ["processing", 14],
  ["on-hold", 5],
  ["pending", 6],
  ["cancelled", 6],
  ["failed", 5],
]

/** Index picker with weights decreasing by rank (a few best sellers, a long tail), O(log n) per pick. */
const popularity = (count: number, rng: Rng): (() => number) => {
  const cumulative: number[] = []
  let total = 0
  for (let i = 0; i < count; i++) cumulative.push((total += 1 / Math.pow(i + 1, 0.8)))
  return () => {
    const r = rng.next() * total
    let lo = 0
    let hi = count - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (cumulative[mid]! > r) hi = mid
      else lo = mid + 1
    }
    return lo
  }
}

/** Instants (UTC seconds) where the zone's offset changes within [from, to). */
const offsetChanges = (site: SiteTime, from: number, to: number): number[] => {
  const out: number[] = []
  for (let t = from; t < to; t += DAY) {
    if (site.offset(t) === site.offset(t + DAY)) continue
    let lo = t
    let hi = t + DAY
    while (hi - lo > 900) {
      const mid = lo + Math.floor((hi - lo) / 1800) * 900
      if (site.offset(mid) === site.offset(t)) lo = mid
      else hi = mid
    }
    out.push(hi)
  }
  return out
}

/** Created instants: uniform over the range, plus some just around local midnight and around DST changes. */
const createdTimes = (rng: Rng, site: SiteTime, count: number, startWall: number, days: number, endUtc: number): number[] => {
  const startUtc = site.fromWall(startWall)
  const changes = offsetChanges(site, startUtc, endUtc)
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const r = rng.next()
    if (r < 0.03) {
      const midnight = startWall + rng.int(1, days - 1) * DAY
      times.push(Math.min(endUtc - 1, site.fromWall(midnight + rng.int(-120, 119))))
    } else if (r < 0.04 && changes.length > 0) {
      const change = rng.pick(changes)
      times.push(Math.min(endUtc - 1, Math.max(startUtc, change + rng.int(-3 * HOUR, 3 * HOUR))))
    } else {
      times.push(rng.int(startUtc, endUtc - 1))
    }
  }
  return times.sort((a, b) => a - b)
}

export const generate = (options: GenerateOptions, timezone = "America/New_York"): StoreData => {
  const rng = createRng(options.seed)
  const site = new SiteTime(timezone)
  const days = options.days ?? 366
  if (options.endsAt !== undefined && options.start !== undefined) throw new Error("generate: give start or endsAt, not both")
  const startWall = options.endsAt === undefined
    ? parseDay(options.start ?? "2024-01-01")
    : Math.floor(site.wall(options.endsAt - 1) / DAY) * DAY - (days - 1) * DAY
  if (startWall === undefined) throw new Error(`generate: start must be YYYY-MM-DD, got ${options.start}`)
  const startUtc = site.fromWall(startWall)
  const endUtc = options.endsAt ?? site.fromWall(startWall + days * DAY)
  /** The latest second anything may happen at: later events have not happened yet. */
  const last = (options.endsAt ?? Infinity) - 1
  const upTo = (t: number) => Math.min(t, last)
  const orderCount = options.orders
  const burstSize = options.burstSize ?? 250
  const bursts = options.bursts ?? (orderCount >= 10 * burstSize ? 3 : orderCount >= 2 * burstSize ? 1 : 0)

  let postId = 10
  const nextPost = () => postId++
  let itemId = 1
  const catalogue = generateCatalogue(rng, options.products ?? Math.min(150, Math.max(12, Math.round(orderCount / 200))), startUtc, nextPost)
  const { products, variations } = catalogue
  const variationsOf = new Map(products.map((p) => [p.id, p.variationIds.map((id) => variations.find((v) => v.id === id)!)]))
  const pickProduct = popularity(products.length, rng)
  const customers = generateCustomers(rng, options.customers ?? Math.max(10, Math.round(orderCount / 5)), startUtc, endUtc)
  for (const c of customers) c.modified = upTo(c.modified)
  assignRoles(customers, options.roles ?? {})

  // ---- orders (ids are assigned once refunds are known, so that ids follow creation time across both) ----
  const orders: Mutable<OrderRecord>[] = []
  const guests: number[] = []
  let registered = 0
  for (const created of createdTimes(rng, site, orderCount, startWall, days, endUtc)) {
    while (registered < customers.length && customers[registered]!.created <= created) registered++
    const customer = registered > 0 && rng.chance(0.8) ? customers[rng.int(0, registered - 1)] : undefined
    let person: number
    if (customer !== undefined) person = customer.person
    else if (guests.length > 0 && rng.chance(0.3)) person = guests[rng.int(Math.max(0, guests.length - 200), guests.length - 1)]!
    else guests.push((person = GUEST_SEEDS + guests.length))
    const { billing } = personFor(person)
    const currency = currencyOf(billing.country)
    const fx = CURRENCIES[currency]!.rate
    const taxRate = taxRateFor(billing.country, billing.state)

    const items: LineInput[] = []
    const lineCount = 1 + rng.weighted([15, 20, 30, 20, 15])
    for (let k = 0; k < lineCount; k++) {
      const product = products[pickProduct()]!
      const options = variationsOf.get(product.id)!
      const variation = options.length > 0 ? rng.pick(options) : undefined
      const quantity = 1 + rng.weighted([70, 20, 7, 3])
      const unit = Math.round((priceOf(variation ?? product) * fx) / 1000)
      items.push({ itemId: itemId++, productId: product.id, variationId: variation?.id ?? 0, quantity, subtotal: unit * quantity })
    }
    const coupon = rng.chance(0.12) ? rng.int(0, COUPONS.length - 1) : -1
    const lines = buildLines(items, coupon < 0 ? undefined : COUPONS[coupon], taxRate)
    const method = rng.chance(0.88) ? rng.weighted([70, 20, 10]) : -1
    const shipping = method === 0 ? Math.round((rng.pick([500, 750, 1000]) * fx) / 1000) : 0
    const fees: FeeRecord[] | null = rng.chance(0.04) ? [rng.chance(0.5) ? { name: "Gift wrap", total: 300 } : { name: "Handling fee", total: 250 }] : null
    const drawn = STATUS_WEIGHTS[rng.weighted(STATUS_WEIGHTS.map(([, w]) => w))]![0]
    const paid = drawn === "processing" || drawn === "completed" ? upTo(created + rng.int(0, 300)) : 0
    const completedAt = drawn === "completed" ? created + rng.int(2 * HOUR, 5 * DAY) : 0
    const settledAt = drawn === "cancelled" || drawn === "failed" ? created + rng.int(600, 2 * DAY) : created
    // What would be completed, cancelled or failed after the end is still under way: processing, or pending payment.
    const status: OrderStatus = completedAt > last ? "processing" : settledAt > last ? "pending" : drawn
    const completed = status === "completed" ? completedAt : 0
    const settled = status === "cancelled" || status === "failed" ? settledAt : created
    const order: Mutable<OrderRecord> = {
      id: 0,
      parentId: 0,
      status,
      currency,
      customerId: customer?.id ?? 0,
      person,
      createdVia: rng.chance(0.95) ? "checkout" : "admin",
      created,
      modified: Math.max(paid, completed, settled),
      paid,
      completed,
      taxRate,
      line_items: lines,
      shipMethod: method,
      shipping,
      shippingTax: taxOn(shipping, taxRate),
      fees,
      coupon,
      total: 0,
      itemBase: itemId,
      refundIds: [],
      extra: null,
    }
    itemId += 3 + (fees?.length ?? 0)
    order.total = orderTotal(order)
    orders.push(order)
  }

  // ---- refunds ----
  const refunds: { order: number; record: Mutable<RefundRecord> }[] = []
  const eligible = orders.filter((o) => o.status === "completed" || o.status === "processing").length
  const chance = eligible === 0 ? 0 : Math.min(1, ((options.refundRate ?? 0.15) * orders.length) / eligible)
  const refundTime = (o: Mutable<OrderRecord>, after: number): number => {
    const r = rng.next()
    if (r < 0.1) {
      // Just before or after a local midnight a few days on: the refund's day is not the order's day.
      const wallDay = Math.floor(site.wall(after) / DAY) * DAY + rng.int(1, 5) * DAY
      return Math.max(after + 60, site.fromWall(wallDay + rng.int(-90, 90)))
    }
    if (r < 0.3) return after + rng.int(HOUR, 8 * HOUR)
    if (r < 0.8) return after + rng.int(DAY, 10 * DAY)
    return o.created + rng.int(10 * DAY, 40 * DAY)
  }
  const addRefund = (index: number, created: number, amount: number, lines: RefundLineRecord[]): void => {
    if (created > last) return
    const o = orders[index]!
    refunds.push({
      order: index,
      record: {
        id: 0,
        orderId: 0,
        created,
        amount,
        reason: rng.pick(REASONS),
        refundedBy: 1,
        refundedPayment: rng.chance(0.8),
        line_items: lines,
        taxItemId: lines.some((l) => l.tax > 0) ? itemId++ : 0,
      },
    })
    o.modified = Math.max(o.modified, created)
  }
  /** One unit of one line, refunded with its tax. */
  const unitRefund = (o: Mutable<OrderRecord>): { lines: RefundLineRecord[]; amount: number } => {
    const line = rng.pick(o.line_items)
    const total = Math.floor(line.total / line.quantity)
    const tax = Math.floor(line.tax / line.quantity)
    return { lines: [{ id: itemId++, orderItemId: line.id, quantity: 1, total, tax }], amount: total + tax }
  }
  orders.forEach((o, index) => {
    if ((o.status !== "completed" && o.status !== "processing") || !rng.chance(chance)) return
    const first = refundTime(o, Math.max(o.created + 60, o.paid))
    if (first > last) return
    if (rng.chance(0.35)) {
      o.status = "refunded"
      if (rng.chance(0.7)) {
        const lines = o.line_items.map((l) => ({ id: itemId++, orderItemId: l.id, quantity: l.quantity, total: l.total, tax: l.tax }))
        addRefund(index, first, o.total, lines)
      } else {
        const part = unitRefund(o)
        addRefund(index, first, part.amount, part.lines)
        if (o.total > part.amount) addRefund(index, first + rng.int(HOUR, 15 * DAY), o.total - part.amount, [])
      }
      return
    }
    const r = rng.next()
    if (r < 0.1) {
      addRefund(index, first, Math.min(o.total, rng.int(2, 20) * 100), [])
      return
    }
    const part = unitRefund(o)
    // Sometimes a restocking fee is kept back: the amount (which wins) is below the line totals.
    const amount = r < 0.18 ? part.amount - Math.min(Math.floor(part.amount / 5), 200) : part.amount
    addRefund(index, first, amount, part.lines)
    const extra = Math.min(o.total - amount, rng.int(2, 15) * 100)
    if (rng.chance(0.2) && extra > 0) addRefund(index, first + rng.int(HOUR, 15 * DAY), extra, [])
  })

  // ---- trash ----
  const trashCount = orders.length >= 50 ? Math.max(1, Math.round(orders.length * 0.006)) : 0
  for (let k = 0; k < trashCount; k++) {
    const o = orders[rng.int(0, orders.length - 1)]!
    if (o.status === "trash") continue
    o.status = "trash"
    o.modified = upTo(o.modified + rng.int(HOUR, 10 * DAY))
  }

  // ---- bulk edits: burstSize orders whose last change is before T all get date_modified = T ----
  const inBurst = new Set<number>()
  for (let b = 0; b < bursts; b++) {
    const at = upTo(startUtc + Math.floor((endUtc - startUtc) * (0.55 + (0.4 * b) / Math.max(1, bursts))) + rng.int(0, HOUR))
    const candidates: number[] = []
    orders.forEach((o, i) => {
      if (o.status !== "trash" && o.modified <= at && !inBurst.has(i)) candidates.push(i)
    })
    for (let k = 0; k < Math.min(burstSize, candidates.length); k++) {
      const j = rng.int(k, candidates.length - 1)
      ;[candidates[k], candidates[j]] = [candidates[j]!, candidates[k]!]
      inBurst.add(candidates[k]!)
      orders[candidates[k]!]!.modified = at
    }
  }

  // ---- ids in creation order across orders and refunds ----
  refunds.sort((a, b) => a.record.created - b.record.created || a.order - b.order)
  let r = 0
  for (const o of orders) {
    while (r < refunds.length && refunds[r]!.record.created < o.created) refunds[r++]!.record.id = nextPost()
    o.id = nextPost()
  }
  while (r < refunds.length) refunds[r++]!.record.id = nextPost()
  for (const { order, record } of refunds) {
    record.orderId = orders[order]!.id
    orders[order]!.refundIds.push(record.id)
  }

  // ---- derived customer and product figures ----
  const byId = new Map(customers.map((c) => [c.id, c]))
  const sales = new Map<number, number>()
  for (const o of orders) {
    if (o.paid > 0 && o.customerId > 0) byId.get(o.customerId)!.isPaying = true
    if (o.status === "completed" || o.status === "processing" || o.status === "on-hold") {
      for (const l of o.line_items) sales.set(l.productId, (sales.get(l.productId) ?? 0) + l.quantity)
    }
  }
  for (const p of products) p.totalSales = sales.get(p.id) ?? 0

  const { reviews, notes } = generateComments(options.seed, products, customers, orders, Math.min(endUtc, last))
  return { products, variations, customers, orders, refunds: refunds.map((x) => x.record).sort((a, b) => a.id - b.id), reviews, notes }
}
