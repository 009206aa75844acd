// The live store: records, indexes and the writes (same rules for the HTTP endpoints and for tests).
// Every write that changes a record's index keys goes through reindex() so list queries stay correct.
// The order and refund writes are here, around those indexes; what an order write's fields become is in
// orders/order-fields.ts, the customer writes in customers/customer-writes.ts, product writes in products/.
import { ADMIN_USER_ID, COUPONS, ORDER_STATUS_NAMES, SHIPPING_METHODS, STORE_CURRENCY, type ShippingMethod, taxRateFor } from "./catalog.ts"
import { type Rng, createRng, hashInts } from "../http/prng.ts"
import type { SimClock } from "./clock.ts"
import { createCustomer, deleteCustomer, setCustomerRole, STANDARD_ROLES, updateCustomer } from "./customers/customer-writes.ts"
import { SiteTime } from "./dates.ts"
import { Ids } from "./ids.ts"
import type { CustomerInput, OrderInput, RefundInput } from "./input.ts"
import {
  type CustomerRecord,
  type MetaEntry,
  type OrderRecord,
  type OrderStatus,
  type ProductRecord,
  type RefundLineRecord,
  type RefundRecord,
  type StoreData,
  type VariationRecord,
} from "./model.ts"
import { parseCents } from "./money.ts"
import { NoteStore } from "./orders/note-store.ts"
import { applyScalars, applyShippingAndFees, changedLines, couponIndex, newLineInputs, orderCurrency, orderStatus } from "./orders/order-fields.ts"
import { buildLines, orderTotal } from "./orders/pricing.ts"
import { Media } from "./products/media.ts"
import { ReviewStore } from "./products/review-store.ts"
import { restockRefund, stockAfterStatus } from "./products/stock.ts"
import { invalidId, wcError } from "./rest/errors.ts"
import { IndexFamily } from "./rest/sorted-index.ts"
import { SettingsStore } from "./settings/settings-store.ts"
import { ZoneStore } from "./shipping/zone-store.ts"
import { TaxStore } from "./taxes/tax-store.ts"
import { Taxonomy } from "./taxonomy/taxonomy.ts"
import { HookBus } from "./webhooks/events.ts"
import { WebhookStore } from "./webhooks/webhook-store.ts"

const REFUNDED_BY_STATUS_REASON =
  "Order status set to refunded. To return funds to the customer you will need to issue a refund through your payment gateway."

export interface StateOptions {
  clock: SimClock
  timezone: string
  /** Seeds the order in which list answers give rows that tie on the sort key; default 1. */
  seed?: number
  /**
   * Where orders live: `hpos` (wp_wc_orders, default) or `posts` (wp_posts), where trashing an order trashes its
   * refunds with it (they leave GET /refunds) and untrashing brings them back with their old date.
   */
  orderStorage?: "hpos" | "posts"
}

export class StoreState {
  readonly site: SiteTime
  readonly orderById = new Map<number, OrderRecord>()
  readonly refundById = new Map<number, RefundRecord>()
  readonly customerById = new Map<number, CustomerRecord>()
  readonly productById = new Map<number, ProductRecord>()
  readonly variationById = new Map<number, VariationRecord>()
  /** Starts with the catalogue's methods; a write naming a new method adds it. */
  readonly shippingMethods: ShippingMethod[] = [...SHIPPING_METHODS]
  /** Non-trashed orders: status=any lists them without any filtering. */
  readonly liveOrders = new IndexFamily<OrderRecord>({ created: (o) => o.created, modified: (o) => o.modified })
  readonly trashedOrders = new IndexFamily<OrderRecord>({ created: (o) => o.created, modified: (o) => o.modified })
  readonly refundIndex = new IndexFamily<RefundRecord>({ created: (r) => r.created, modified: (r) => r.created })
  readonly productIndex = new IndexFamily<ProductRecord>({ created: (p) => p.created, modified: (p) => p.modified })
  /** Bumped on every customer write, so cached customer orderings know when to rebuild. */
  customerRevision = 0
  /** Roles the shop added besides the standard ones (a membership or wholesale plugin's). */
  readonly customRoles = new Set<string>()

  readonly ids: Ids
  /** Action hooks the writes fire; webhooks listen here. */
  readonly hooks = new HookBus()
  readonly media: Media
  readonly taxonomy: Taxonomy
  readonly taxes: TaxStore
  readonly reviews: ReviewStore
  readonly notes: NoteStore
  readonly settings = new SettingsStore()
  readonly zones: ZoneStore
  readonly webhooks: WebhookStore
  /** Products deleted for good, kept so that order lines still show what was bought. */
  readonly deletedProducts = new Map<number, ProductRecord>()

  private readonly clock: SimClock
  private readonly seed: number
  private readonly postsStorage: boolean
  /** List requests answered so far: each one orders its ties its own way. */
  private listRequests = 0

  constructor(data: StoreData, options: StateOptions) {
    this.clock = options.clock
    this.seed = options.seed ?? 1
    this.postsStorage = options.orderStorage === "posts"
    this.site = new SiteTime(options.timezone)
    for (const p of data.products) this.productById.set(p.id, p)
    for (const v of data.variations) this.variationById.set(v.id, v)
    for (const c of data.customers) this.customerById.set(c.id, c)
    for (const c of data.customers) if (!(STANDARD_ROLES as ReadonlyArray<string>).includes(c.role)) this.customRoles.add(c.role)
    for (const o of data.orders) this.orderById.set(o.id, o)
    for (const r of data.refunds) this.refundById.set(r.id, r)
    this.liveOrders.reset(data.orders.filter((o) => o.status !== "trash"))
    this.trashedOrders.reset(data.orders.filter((o) => o.status === "trash"))
    this.refundIndex.reset(data.refunds.filter((r) => this.listsRefunds(this.orderById.get(r.orderId)!)))
    this.productIndex.reset(data.products)

    let post = 0
    let item = 0
    let meta = 0
    for (const m of [this.productById, this.variationById, this.orderById, this.refundById]) for (const id of m.keys()) post = Math.max(post, id)
    for (const o of data.orders) {
      for (const l of o.line_items) item = Math.max(item, l.id)
      item = Math.max(item, o.itemBase + 2 + (o.fees?.length ?? 0))
      for (const m of o.extra?.meta_data ?? []) meta = Math.max(meta, m.id)
    }
    for (const r of data.refunds) {
      for (const l of r.line_items) item = Math.max(item, l.id)
      item = Math.max(item, r.taxItemId)
    }
    for (const c of data.customers) for (const m of c.metaData) meta = Math.max(meta, m.id)
    let user = ADMIN_USER_ID
    for (const id of this.customerById.keys()) user = Math.max(user, id)
    this.ids = new Ids({ post, item, user, meta })

    const now = () => this.now()
    this.media = new Media(this.ids, now)
    this.taxonomy = new Taxonomy(this.ids, () => this.productById.values())
    this.taxes = new TaxStore(this.ids)
    this.reviews = new ReviewStore(this.ids, (id) => this.productById.get(id), now, data.reviews ?? [])
    this.notes = new NoteStore(this.ids, now, data.notes ?? [])
    this.zones = new ZoneStore(this.ids)
    this.webhooks = new WebhookStore(this.ids, now, this.site)
  }

  /** Every order that exists (trashed ones included, force-deleted ones not), by id. */
  get orders(): OrderRecord[] {
    return [...this.orderById.values()]
  }

  get refunds(): RefundRecord[] {
    return [...this.refundById.values()]
  }

  get customers(): CustomerRecord[] {
    return [...this.customerById.values()]
  }

  get products(): ProductRecord[] {
    return [...this.productById.values()]
  }

  get variations(): VariationRecord[] {
    return [...this.variationById.values()]
  }

  /** Current time in whole epoch seconds. */
  now(): number {
    return Math.floor(this.clock.now() / 1000)
  }

  /** One list request's generator for the order of tied rows: the same for the same seed and request count. */
  listRng(): Rng {
    return createRng(hashInts(this.seed, ++this.listRequests))
  }

  // ---- orders ----

  createOrder(input: OrderInput): OrderRecord {
    const now = this.now()
    const status = orderStatus(input.status) ?? "pending"
    // New orders are in the shop's currency setting unless they name one.
    const currency = orderCurrency(input.currency) ?? String(this.settings.value("woocommerce_currency") ?? STORE_CURRENCY)
    const customerId = input.customer_id ?? 0
    if (customerId !== 0 && !this.customerById.has(customerId)) throw wcError(400, "woocommerce_rest_invalid_customer_id", "Customer ID is invalid.")
    const taxRate = taxRateFor(input.billing?.country ?? "", input.billing?.state ?? "")
    const coupon = couponIndex(input.coupon_lines)
    const items = newLineInputs(this, input.line_items ?? [], currency)
    const order: OrderRecord = {
      id: this.ids.take("post"),
      parentId: 0,
      status,
      currency,
      customerId,
      person: 0,
      createdVia: input.created_via ?? "rest-api",
      created: now,
      modified: now,
      paid: 0,
      completed: 0,
      taxRate,
      line_items: buildLines(items, coupon < 0 ? undefined : COUPONS[coupon], taxRate),
      shipMethod: -1,
      shipping: 0,
      shippingTax: 0,
      fees: null,
      coupon,
      total: 0,
      itemBase: 0,
      refundIds: [],
      extra: null,
    }
    applyShippingAndFees(this, order, input)
    order.total = orderTotal(order)
    applyScalars(this, order, input)
    this.applyStatus(order, status, input.set_paid === true, now, "pending")
    this.orderById.set(order.id, order)
    this.familyOf(order).add(order)
    this.hooks.emit("woocommerce_new_order", order.id, "order")
    return order
  }

  updateOrder(id: number, patch: OrderInput): OrderRecord {
    const order = this.orderById.get(id)
    if (order === undefined) throw invalidId("shop_order", 400)
    const now = this.now()
    const status = orderStatus(patch.status)
    const currency = orderCurrency(patch.currency)
    if (patch.customer_id !== undefined && patch.customer_id !== 0 && !this.customerById.has(patch.customer_id)) {
      throw wcError(400, "woocommerce_rest_invalid_customer_id", "Customer ID is invalid.")
    }
    const coupon = patch.coupon_lines === undefined ? order.coupon : couponIndex(patch.coupon_lines)
    const lines = patch.line_items === undefined && patch.coupon_lines === undefined ? undefined : changedLines(this, order, patch.line_items ?? [], currency ?? order.currency, coupon)
    const previous = order.status
    // created_via is settable at creation only: an update ignores it.
    this.reindex(order, () => {
      if (currency !== undefined) order.currency = currency
      if (patch.customer_id !== undefined) order.customerId = patch.customer_id
      if (lines !== undefined) {
        order.coupon = coupon
        order.line_items = lines
      }
      applyShippingAndFees(this, order, patch)
      order.total = orderTotal(order)
      applyScalars(this, order, patch)
      order.modified = now
      if (status !== undefined || patch.set_paid === true) this.applyStatus(order, status ?? order.status, patch.set_paid === true, now, previous)
    })
    if (status === "refunded") {
      const left = this.refundable(order)
      if (left > 0) this.createRefund(order.id, { amount: left / 100, reason: REFUNDED_BY_STATUS_REASON, api_refund: false, api_restock: false })
    }
    if (previous === "trash" && order.status !== "trash") {
      if (this.postsStorage) for (const refundId of order.refundIds) this.refundIndex.add(this.refundById.get(refundId)!)
      this.hooks.emit("untrashed_post", order.id, "order")
    }
    this.hooks.emit("woocommerce_update_order", order.id, "order")
    return order
  }

  trashOrder(id: number): OrderRecord {
    const order = this.orderById.get(id)
    if (order === undefined) throw invalidId("shop_order")
    if (order.status === "trash") throw wcError(410, "woocommerce_rest_already_trashed", "The order has already been deleted.")
    this.reindex(order, () => {
      order.status = "trash"
      order.modified = this.now()
    })
    if (this.postsStorage) for (const refundId of order.refundIds) this.refundIndex.remove(this.refundById.get(refundId)!)
    this.hooks.emit("wp_trash_post", order.id, "order")
    return order
  }

  /** Deletes the order and its refunds for good; nothing announces it (only an id comparison finds it). */
  forceDeleteOrder(id: number): OrderRecord {
    const order = this.orderById.get(id)
    if (order === undefined) throw invalidId("shop_order")
    const listed = this.listsRefunds(order)
    this.familyOf(order).remove(order)
    this.orderById.delete(id)
    for (const refundId of order.refundIds) {
      if (listed) this.refundIndex.remove(this.refundById.get(refundId)!)
      this.refundById.delete(refundId)
    }
    this.notes.deleteForOrder(id)
    this.hooks.emit("woocommerce_delete_order", id, "order")
    return order
  }

  /** The "bulk edit": every given order gets the same date_modified second. */
  bulkTouchOrders(ids: ReadonlyArray<number>): void {
    const orders = ids.map((id) => {
      const order = this.orderById.get(id)
      if (order === undefined) throw invalidId("shop_order")
      return order
    })
    const now = this.now()
    const touched = new Set(orders)
    for (const family of [this.liveOrders, this.trashedOrders]) family.by.modified.removeAll(touched)
    for (const order of [...touched].sort((a, b) => a.id - b.id)) {
      order.modified = now
      this.familyOf(order).by.modified.insert(order)
    }
    for (const order of touched) this.hooks.emit("woocommerce_update_order", order.id, "order")
  }

  // ---- refunds ----

  /** Whether GET /refunds lists the order's refunds: not when the posts storage trashed them with the order. */
  private listsRefunds(order: OrderRecord): boolean {
    return !(this.postsStorage && order.status === "trash")
  }

  /** Amount still refundable, in cents. */
  refundable(order: OrderRecord): number {
    return order.total - order.refundIds.reduce((s, id) => s + this.refundById.get(id)!.amount, 0)
  }

  /** Creating a refund bumps the parent's date_modified; a full refund moves the order to "refunded". */
  createRefund(orderId: number, input: RefundInput): RefundRecord {
    const order = this.orderById.get(orderId)
    if (order === undefined) throw wcError(404, "woocommerce_rest_invalid_order_id", "Invalid order ID.")
    const lines: RefundLineRecord[] = []
    for (const item of input.line_items ?? []) {
      // WooCommerce skips ids that are not lines of the order.
      if (!order.line_items.some((l) => l.id === item.id)) continue
      const total = parseCents(item.refund_total ?? 0) ?? 0
      const tax = (item.refund_tax ?? []).reduce((s, t) => s + (parseCents(t.refund_total ?? 0) ?? 0), 0)
      if (total === 0 && tax === 0 && (item.quantity ?? 0) === 0) continue
      lines.push({ id: this.ids.take("item"), orderItemId: item.id, quantity: item.quantity ?? 0, total, tax })
    }
    const lineSum = lines.reduce((s, l) => s + l.total + l.tax, 0)
    const amount = input.amount === undefined || input.amount === "" ? lineSum : parseCents(input.amount)
    if (amount === undefined) throw wcError(400, "rest_invalid_param", "Invalid parameter(s): amount", { params: { amount: "amount is not of type string." } })
    if (amount < 0) throw wcError(400, "woocommerce_rest_invalid_order_refund", "Refund amount must be greater than zero.")
    const left = this.refundable(order)
    if (amount > left) throw wcError(500, "woocommerce_rest_cannot_create_order_refund", "Invalid refund amount.")
    const now = this.now()
    const refund: RefundRecord = {
      id: this.ids.take("post"),
      orderId,
      created: now,
      amount,
      reason: input.reason ?? "",
      refundedBy: ADMIN_USER_ID,
      refundedPayment: input.api_refund !== false,
      line_items: lines,
      taxItemId: lines.some((l) => l.tax > 0) ? this.ids.take("item") : 0,
    }
    this.refundById.set(refund.id, refund)
    if (this.listsRefunds(order)) this.refundIndex.add(refund)
    const previous = order.status
    this.reindex(order, () => {
      order.refundIds.push(refund.id)
      order.modified = now
      if (amount > 0 && amount === left && order.status !== "refunded" && order.status !== "trash") order.status = "refunded"
    })
    if (order.status !== previous) this.statusNote(order, previous)
    if (input.api_restock !== false) restockRefund(this, order, lines)
    this.hooks.emit("woocommerce_order_refunded", orderId, "order")
    return refund
  }

  /** Deleting a refund does not touch the parent order (not even its date_modified), as in WooCommerce. */
  deleteRefund(orderId: number, refundId: number): RefundRecord {
    const refund = this.refundById.get(refundId)
    if (refund === undefined || refund.orderId !== orderId) throw invalidId("shop_order_refund")
    if (this.listsRefunds(this.orderById.get(orderId)!)) this.refundIndex.remove(refund)
    this.refundById.delete(refundId)
    const order = this.orderById.get(orderId)!
    order.refundIds = order.refundIds.filter((id) => id !== refundId)
    return refund
  }

  // ---- customers (their rules are in customers/customer-writes.ts) ----

  createCustomer(input: CustomerInput): CustomerRecord {
    return createCustomer(this, input)
  }

  updateCustomer(id: number, patch: CustomerInput): CustomerRecord {
    return updateCustomer(this, id, patch)
  }

  /** Gives a user another role (subscriber, staff, or a role of the shop's own). */
  setCustomerRole(id: number, role: string): CustomerRecord {
    return setCustomerRole(this, id, role)
  }

  deleteCustomer(id: number, reassign: number | undefined): CustomerRecord {
    return deleteCustomer(this, id, reassign)
  }

  // ---- internals ----

  familyOf(order: OrderRecord): IndexFamily<OrderRecord> {
    return order.status === "trash" ? this.trashedOrders : this.liveOrders
  }

  /**
   * Runs a change to an order and keeps the indexes in step: date_modified and the trash bucket may change
   * inside `mutate`; id and date_created never do, so only a move between buckets touches those indexes.
   */
  private reindex(order: OrderRecord, mutate: () => void): void {
    const before = this.familyOf(order)
    before.by.modified.remove(order)
    try {
      mutate()
    } finally {
      const after = this.familyOf(order)
      if (after !== before) {
        before.by.id.remove(order)
        before.by.created.remove(order)
        after.by.id.insert(order)
        after.by.created.insert(order)
      }
      after.by.modified.insert(order)
    }
  }

  /**
   * Status side effects: payment date for paid statuses or set_paid, completion date, the status-change note and
   * the stock movement (set_paid means processing and reduced stock, seed part 1 §3).
   */
  private applyStatus(order: OrderRecord, status: OrderStatus, setPaid: boolean, now: number, previous: OrderStatus): void {
    const next = setPaid && ["pending", "failed", "on-hold", "checkout-draft"].includes(status) ? "processing" : status
    order.status = next
    if ((setPaid || next === "processing" || next === "completed") && order.paid === 0) order.paid = now
    if (next === "completed" && order.completed === 0) order.completed = now
    const customer = order.paid > 0 ? this.customerById.get(order.customerId) : undefined
    if (customer !== undefined) customer.isPaying = true
    if (next !== previous) this.statusNote(order, previous)
    stockAfterStatus(this, order, setPaid)
  }

  private statusNote(order: OrderRecord, previous: OrderStatus): void {
    const name = (status: OrderStatus) => ORDER_STATUS_NAMES[status] ?? status
    this.notes.add(order.id, `Order status changed from ${name(previous)} to ${name(order.status)}.`)
  }

  /** meta_data written by key: an existing key gets the new value, a new key a new row. */
  mergeMeta(current: MetaEntry[], patch: ReadonlyArray<{ key: string; value: unknown }> | undefined): MetaEntry[] {
    const out = [...current]
    for (const m of patch ?? []) {
      const existing = out.find((e) => e.key === m.key)
      if (existing !== undefined) existing.value = m.value
      else out.push({ id: this.ids.take("meta"), key: m.key, value: m.value })
    }
    return out
  }
}
