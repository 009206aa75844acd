// The live store: records, indexes and the writes (same rules for the HTTP endpoints and for tests).
// Every write that changes a record's index keys goes through reindex() so list queries stay correct.
import { createHash } from "node:crypto"
import { ADMIN_USER_ID, COUPONS, CURRENCIES, ORDER_STATUS_NAMES, SHIPPING_METHODS, STORE_CURRENCY, type ShippingMethod, taxRateFor } from "./catalog.ts"
import type { SimClock } from "./clock.ts"
import { SiteTime } from "./dates.ts"
import { invalidId, wcError } from "./rest/errors.ts"
import { HookBus } from "./webhooks/events.ts"
import { CURRENCY_CODES } from "./settings/geo.ts"
import { Ids } from "./ids.ts"
import {
  type Address,
  type CustomerRecord,
  type FeeRecord,
  type LineRecord,
  type MetaEntry,
  ORDER_STATUSES,
  type OrderRecord,
  type OrderStatus,
  type ProductRecord,
  type RefundLineRecord,
  type RefundRecord,
  type StoreData,
  type VariationRecord,
} from "./model.ts"
import type { CustomerInput, OrderInput, RefundInput } from "./input.ts"
import { Media } from "./products/media.ts"
import { parseCents } from "./money.ts"
import { NoteStore } from "./orders/note-store.ts"
import { currentPrice } from "./products/product-json.ts"
import { emptyAddress, mergeAddress, personFor } from "./people.ts"
import { type LineInput, buildLines, orderTotal, taxOn } from "./orders/pricing.ts"
import { ReviewStore } from "./products/review-store.ts"
import { IndexFamily } from "./rest/sorted-index.ts"
import { restockRefund, stockAfterStatus } from "./products/stock.ts"
import { SettingsStore } from "./settings/settings-store.ts"
import { TaxStore } from "./taxes/tax-store.ts"
import { Taxonomy } from "./taxonomy/taxonomy.ts"
import { WebhookStore } from "./webhooks/webhook-store.ts"
import { ZoneStore } from "./shipping/zone-store.ts"

const REFUNDED_BY_STATUS_REASON =
  "Order status set to refunded. To return funds to the customer you will need to issue a refund through your payment gateway."

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** Passwords are write-only: only a hash is kept, for the storefront's logins. */
export const passwordHash = (password: string): string => createHash("sha256").update(password).digest("hex")

export interface StateOptions {
  clock: SimClock
  timezone: string
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

  constructor(data: StoreData, options: StateOptions) {
    this.clock = options.clock
    this.site = new SiteTime(options.timezone)
    for (const p of data.products) this.productById.set(p.id, p)
    for (const v of data.variations) this.variationById.set(v.id, v)
    for (const c of data.customers) this.customerById.set(c.id, c)
    for (const o of data.orders) this.orderById.set(o.id, o)
    for (const r of data.refunds) this.refundById.set(r.id, r)
    this.liveOrders.reset(data.orders.filter((o) => o.status !== "trash"))
    this.trashedOrders.reset(data.orders.filter((o) => o.status === "trash"))
    this.refundIndex.reset(data.refunds)
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

  // ---- orders ----

  createOrder(input: OrderInput): OrderRecord {
    const now = this.now()
    const status = this.orderStatus(input.status) ?? "pending"
    // New orders are in the shop's currency setting unless they name one.
    const currency = this.currency(input.currency) ?? String(this.settings.value("woocommerce_currency") ?? STORE_CURRENCY)
    const customerId = input.customer_id ?? 0
    if (customerId !== 0 && !this.customerById.has(customerId)) throw wcError(400, "woocommerce_rest_invalid_customer_id", "Customer ID is invalid.")
    const taxRate = taxRateFor(input.billing?.country ?? "", input.billing?.state ?? "")
    const coupon = this.couponIndex(input.coupon_lines)
    const items = this.newLineInputs(input.line_items ?? [], currency)
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
    this.applyShippingAndFees(order, input)
    order.total = orderTotal(order)
    this.applyScalars(order, input)
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
    const status = this.orderStatus(patch.status)
    const currency = this.currency(patch.currency)
    if (patch.customer_id !== undefined && patch.customer_id !== 0 && !this.customerById.has(patch.customer_id)) {
      throw wcError(400, "woocommerce_rest_invalid_customer_id", "Customer ID is invalid.")
    }
    const coupon = patch.coupon_lines === undefined ? order.coupon : this.couponIndex(patch.coupon_lines)
    const lines = patch.line_items === undefined && patch.coupon_lines === undefined ? undefined : this.changedLines(order, patch.line_items ?? [], currency ?? order.currency, coupon)
    const previous = order.status
    // created_via is settable at creation only: an update ignores it.
    this.reindex(order, () => {
      if (currency !== undefined) order.currency = currency
      if (patch.customer_id !== undefined) order.customerId = patch.customer_id
      if (lines !== undefined) {
        order.coupon = coupon
        order.line_items = lines
      }
      this.applyShippingAndFees(order, patch)
      order.total = orderTotal(order)
      this.applyScalars(order, patch)
      order.modified = now
      if (status !== undefined || patch.set_paid === true) this.applyStatus(order, status ?? order.status, patch.set_paid === true, now, previous)
    })
    if (status === "refunded") {
      const left = this.refundable(order)
      if (left > 0) this.createRefund(order.id, { amount: left / 100, reason: REFUNDED_BY_STATUS_REASON, api_refund: false, api_restock: false })
    }
    if (previous === "trash" && order.status !== "trash") this.hooks.emit("untrashed_post", order.id, "order")
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
    this.hooks.emit("wp_trash_post", order.id, "order")
    return order
  }

  /** Deletes the order and its refunds for good; nothing announces it (only an id comparison finds it). */
  forceDeleteOrder(id: number): OrderRecord {
    const order = this.orderById.get(id)
    if (order === undefined) throw invalidId("shop_order")
    this.familyOf(order).remove(order)
    this.orderById.delete(id)
    for (const refundId of order.refundIds) {
      this.refundIndex.remove(this.refundById.get(refundId)!)
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
    this.refundIndex.add(refund)
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
    this.refundIndex.remove(refund)
    this.refundById.delete(refundId)
    const order = this.orderById.get(orderId)!
    order.refundIds = order.refundIds.filter((id) => id !== refundId)
    return refund
  }

  // ---- customers ----

  createCustomer(input: CustomerInput): CustomerRecord {
    if (input.email === undefined || input.email === "") {
      throw wcError(400, "rest_missing_callback_param", "Missing parameter(s): email", { params: ["email"] })
    }
    const email = this.checkEmail(input.email, undefined)
    const username = input.username ?? this.freeUsername(email.split("@")[0]!.replace(/[^a-z0-9_.-]/gi, "") || "customer")
    if ([...this.customerById.values()].some((c) => c.username === username)) {
      throw wcError(400, "registration-error-username-exists", "An account is already registered with that username. Please choose another.")
    }
    const now = this.now()
    const customer: CustomerRecord = {
      id: this.ids.take("user"),
      created: now,
      modified: now,
      person: 0,
      email,
      firstName: input.first_name ?? "",
      lastName: input.last_name ?? "",
      username,
      role: "customer",
      billing: mergeAddress(emptyAddress(true), input.billing),
      shipping: mergeAddress(emptyAddress(false), input.shipping),
      isPaying: false,
      metaData: this.mergeMeta([], input.meta_data),
      ...(input.password === undefined ? {} : { passwordHash: passwordHash(input.password) }),
    }
    this.customerById.set(customer.id, customer)
    this.customerRevision++
    this.hooks.emit("user_register", customer.id, "customer")
    this.hooks.emit("woocommerce_created_customer", customer.id, "customer")
    return customer
  }

  updateCustomer(id: number, patch: CustomerInput): CustomerRecord {
    const c = this.customerById.get(id)
    if (c === undefined) throw invalidId("customer", 400)
    if (patch.username !== undefined && patch.username !== c.username) throw wcError(400, "woocommerce_rest_customer_invalid_argument", "Username isn't editable.")
    const email = patch.email === undefined ? undefined : this.checkEmail(patch.email, id)
    if (email !== undefined) c.email = email
    if (patch.first_name !== undefined) c.firstName = patch.first_name
    if (patch.last_name !== undefined) c.lastName = patch.last_name
    if (patch.billing !== undefined) c.billing = mergeAddress(this.customerAddresses(c).billing, patch.billing)
    if (patch.shipping !== undefined) c.shipping = mergeAddress(this.customerAddresses(c).shipping, patch.shipping)
    if (patch.meta_data !== undefined) c.metaData = this.mergeMeta(c.metaData, patch.meta_data)
    if (patch.password !== undefined) c.passwordHash = passwordHash(patch.password)
    c.modified = this.now()
    this.customerRevision++
    this.hooks.emit("profile_update", c.id, "customer")
    return c
  }

  /**
   * wp_delete_user: the customer's orders go to the `reassign` user, or become guest orders without one (as
   * WooCommerce resets _customer_user); both are direct database updates that leave date_modified alone.
   */
  deleteCustomer(id: number, reassign: number | undefined): CustomerRecord {
    const c = this.customerById.get(id)
    if (c === undefined) throw invalidId("customer")
    if (reassign !== undefined && reassign !== 0 && (reassign === id || (reassign !== ADMIN_USER_ID && !this.customerById.has(reassign)))) {
      throw wcError(400, "woocommerce_rest_customer_invalid_reassign", "Invalid resource id for reassignment.")
    }
    for (const family of [this.liveOrders, this.trashedOrders]) for (const o of family.by.id.items) if (o.customerId === id) o.customerId = reassign ?? 0
    this.hooks.emit("delete_user", id, "customer")
    this.customerById.delete(id)
    this.customerRevision++
    return c
  }

  customerAddresses(c: CustomerRecord): { billing: Address; shipping: Address } {
    const person = c.person > 0 ? personFor(c.person) : undefined
    return {
      billing: c.billing ?? person?.billing ?? emptyAddress(true),
      shipping: c.shipping ?? person?.shipping ?? emptyAddress(false),
    }
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

  private orderStatus(value: string | undefined): OrderStatus | undefined {
    if (value === undefined) return undefined
    if (!(ORDER_STATUSES as ReadonlyArray<string>).includes(value)) {
      throw wcError(400, "rest_invalid_param", "Invalid parameter(s): status", { params: { status: `status is not one of ${ORDER_STATUSES.join(", ")}.` } })
    }
    return value as OrderStatus
  }

  private currency(value: string | undefined): string | undefined {
    if (value === undefined) return undefined
    if (!CURRENCY_CODES.includes(value)) {
      throw wcError(400, "rest_invalid_param", "Invalid parameter(s): currency", { params: { currency: `currency is not one of ${CURRENCY_CODES.join(", ")}.` } })
    }
    return value
  }

  private couponIndex(lines: OrderInput["coupon_lines"]): number {
    const code = lines?.[0]?.code
    if (code === undefined) return -1
    const i = COUPONS.findIndex((c) => c.code === code.toLowerCase())
    if (i < 0) throw wcError(400, "woocommerce_rest_invalid_coupon", `Coupon "${code}" does not exist!`)
    return i
  }

  private unitPrice(productId: number, variationId: number, currency: string): number {
    const product = this.productById.get(productId)
    if (product === undefined) throw wcError(400, "woocommerce_rest_invalid_product_id", `Product ID ${productId} is invalid.`)
    const variation = variationId === 0 ? undefined : this.variationById.get(variationId)
    if (variationId !== 0 && variation?.parentId !== productId) throw wcError(400, "woocommerce_rest_invalid_variation_id", `Variation ID ${variationId} is invalid.`)
    // The price now (a sale window written through the API counts); an item without a price sells for 0.
    return Math.round(((currentPrice(variation ?? product, this.now()) ?? 0) * (CURRENCIES[currency]?.rate ?? 1000)) / 1000)
  }

  private newLineInputs(items: NonNullable<OrderInput["line_items"]>, currency: string): LineInput[] {
    return items.map((l) => {
      const productId = l.product_id ?? 0
      const variationId = l.variation_id ?? 0
      const quantity = l.quantity ?? 1
      const subtotal = parseCents(l.subtotal) ?? this.unitPrice(productId, variationId, currency) * quantity
      const total = parseCents(l.total)
      return { itemId: this.ids.take("item"), productId, variationId, quantity, subtotal, ...(total === undefined ? {} : { total }) }
    })
  }

  /** Existing lines with the patch applied (by line id), new lines appended; totals recomputed. */
  private changedLines(order: OrderRecord, patch: NonNullable<OrderInput["line_items"]>, currency: string, coupon: number): LineRecord[] {
    const items: LineInput[] = []
    for (const line of order.line_items) {
      const change = patch.find((p) => p.id === line.id)
      const quantity = change?.quantity ?? line.quantity
      if (change !== undefined && (change.product_id === null || quantity === 0)) continue
      const subtotal = parseCents(change?.subtotal) ?? Math.round((line.subtotal * quantity) / Math.max(1, line.quantity))
      const total = parseCents(change?.total)
      items.push({ itemId: line.id, productId: line.productId, variationId: line.variationId, quantity, subtotal, ...(total === undefined ? {} : { total }) })
    }
    const added = patch.filter((p) => p.id === undefined)
    return buildLines([...items, ...this.newLineInputs(added, currency)], coupon < 0 ? undefined : COUPONS[coupon], order.taxRate)
  }

  private applyShippingAndFees(order: OrderRecord, input: OrderInput): void {
    const ship = input.shipping_lines?.[0]
    if (ship !== undefined) {
      const methodId = ship.method_id ?? "flat_rate"
      let m = this.shippingMethods.findIndex((s) => s.id === methodId && (ship.method_title === undefined || s.title === ship.method_title))
      if (m < 0) m = this.shippingMethods.push({ id: methodId, title: ship.method_title ?? methodId }) - 1
      order.shipMethod = m
      order.shipping = parseCents(ship.total) ?? 0
      order.shippingTax = taxOn(order.shipping, order.taxRate)
    }
    if (input.fee_lines !== undefined || order.itemBase === 0) {
      const fees: FeeRecord[] = (input.fee_lines ?? []).map((f) => ({ name: f.name ?? "Fee", total: parseCents(f.total) ?? 0 }))
      order.fees = fees.length > 0 ? fees : null
      // The shipping, fee, coupon and tax lines take consecutive item ids: a new set of fees needs a new block.
      order.itemBase = this.ids.block("item", 3 + fees.length)
    }
  }

  private applyScalars(order: OrderRecord, input: OrderInput): void {
    const extra = (order.extra ??= {})
    if (input.billing !== undefined) extra.billing = { ...extra.billing, ...mergeAddress({}, input.billing) }
    if (input.shipping !== undefined) extra.shipping = { ...extra.shipping, ...mergeAddress({}, input.shipping) }
    if (input.payment_method !== undefined) extra.payment_method = input.payment_method
    if (input.payment_method_title !== undefined) extra.payment_method_title = input.payment_method_title
    if (input.transaction_id !== undefined) extra.transaction_id = input.transaction_id
    if (input.customer_note !== undefined) extra.customer_note = input.customer_note
    if (input.meta_data !== undefined) extra.meta_data = this.mergeMeta(extra.meta_data ?? [], input.meta_data)
    if (input.parent_id !== undefined) order.parentId = input.parent_id
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

  private checkEmail(email: string, selfId: number | undefined): string {
    if (!EMAIL.test(email)) throw wcError(400, "rest_invalid_param", "Invalid parameter(s): email", { params: { email: "Invalid email address." } })
    for (const c of this.customerById.values()) {
      if (c.id !== selfId && c.email.toLowerCase() === email.toLowerCase()) {
        throw wcError(400, "registration-error-email-exists", 'An account is already registered with your email address. <a href="#" class="showlogin">Please log in.</a>')
      }
    }
    return email
  }

  private freeUsername(base: string): string {
    const taken = new Set([...this.customerById.values()].map((c) => c.username))
    if (!taken.has(base)) return base
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`
  }
}
