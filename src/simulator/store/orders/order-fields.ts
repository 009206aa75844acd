// How an order write's fields become the record's: status and currency checked, the coupon looked up, lines
// priced (a new line at its product's price now) and discounted, shipping and fee lines, and the plain fields.
import { COUPONS, CURRENCIES } from "../catalog.ts"
import type { OrderInput } from "../input.ts"
import { type FeeRecord, type LineRecord, ORDER_STATUSES, type OrderRecord, type OrderStatus } from "../model.ts"
import { parseCents } from "../money.ts"
import { mergeAddress } from "../people.ts"
import { currentPrice } from "../products/product-json.ts"
import { wcError } from "../rest/errors.ts"
import { CURRENCY_CODES } from "../settings/geo.ts"
import type { StoreState } from "../state.ts"
import { type LineInput, buildLines, taxOn } from "./pricing.ts"

export const orderStatus = (value: string | undefined): OrderStatus | undefined => {
  if (value === undefined) return undefined
  if (!(ORDER_STATUSES as ReadonlyArray<string>).includes(value)) {
    throw wcError(400, "rest_invalid_param", "Invalid parameter(s): status", { params: { status: `status is not one of ${ORDER_STATUSES.join(", ")}.` } })
  }
  return value as OrderStatus
}

export const orderCurrency = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  if (!CURRENCY_CODES.includes(value)) {
    throw wcError(400, "rest_invalid_param", "Invalid parameter(s): currency", { params: { currency: `currency is not one of ${CURRENCY_CODES.join(", ")}.` } })
  }
  return value
}

export const couponIndex = (lines: OrderInput["coupon_lines"]): number => {
  const code = lines?.[0]?.code
  if (code === undefined) return -1
  const i = COUPONS.findIndex((c) => c.code === code.toLowerCase())
  if (i < 0) throw wcError(400, "woocommerce_rest_invalid_coupon", `Coupon "${code}" does not exist!`)
  return i
}

const unitPrice = (s: StoreState, productId: number, variationId: number, currency: string): number => {
  const product = s.productById.get(productId)
  if (product === undefined) throw wcError(400, "woocommerce_rest_invalid_product_id", `Product ID ${productId} is invalid.`)
  const variation = variationId === 0 ? undefined : s.variationById.get(variationId)
  if (variationId !== 0 && variation?.parentId !== productId) throw wcError(400, "woocommerce_rest_invalid_variation_id", `Variation ID ${variationId} is invalid.`)
  // The price now (a sale window written through the API counts); an item without a price sells for 0.
  return Math.round(((currentPrice(variation ?? product, s.now()) ?? 0) * (CURRENCIES[currency]?.rate ?? 1000)) / 1000)
}

export const newLineInputs = (s: StoreState, items: NonNullable<OrderInput["line_items"]>, currency: string): LineInput[] =>
  items.map((l) => {
    const productId = l.product_id ?? 0
    const variationId = l.variation_id ?? 0
    const quantity = l.quantity ?? 1
    const subtotal = parseCents(l.subtotal) ?? unitPrice(s, productId, variationId, currency) * quantity
    const total = parseCents(l.total)
    return { itemId: s.ids.take("item"), productId, variationId, quantity, subtotal, ...(total === undefined ? {} : { total }) }
  })

/** Existing lines with the patch applied (by line id), new lines appended; totals recomputed. */
export const changedLines = (s: StoreState, order: OrderRecord, patch: NonNullable<OrderInput["line_items"]>, currency: string, coupon: number): LineRecord[] => {
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
  return buildLines([...items, ...newLineInputs(s, added, currency)], coupon < 0 ? undefined : COUPONS[coupon], order.taxRate)
}

export const applyShippingAndFees = (s: StoreState, order: OrderRecord, input: OrderInput): void => {
  const ship = input.shipping_lines?.[0]
  if (ship !== undefined) {
    const methodId = ship.method_id ?? "flat_rate"
    let m = s.shippingMethods.findIndex((sm) => sm.id === methodId && (ship.method_title === undefined || sm.title === ship.method_title))
    if (m < 0) m = s.shippingMethods.push({ id: methodId, title: ship.method_title ?? methodId }) - 1
    order.shipMethod = m
    order.shipping = parseCents(ship.total) ?? 0
    order.shippingTax = taxOn(order.shipping, order.taxRate)
  }
  if (input.fee_lines !== undefined || order.itemBase === 0) {
    const fees: FeeRecord[] = (input.fee_lines ?? []).map((f) => ({ name: f.name ?? "Fee", total: parseCents(f.total) ?? 0 }))
    order.fees = fees.length > 0 ? fees : null
    // The shipping, fee, coupon and tax lines take consecutive item ids: a new set of fees needs a new block.
    order.itemBase = s.ids.block("item", 3 + fees.length)
  }
}

export const applyScalars = (s: StoreState, order: OrderRecord, input: OrderInput): void => {
  const extra = (order.extra ??= {})
  if (input.billing !== undefined) extra.billing = { ...extra.billing, ...mergeAddress({}, input.billing) }
  if (input.shipping !== undefined) extra.shipping = { ...extra.shipping, ...mergeAddress({}, input.shipping) }
  if (input.payment_method !== undefined) extra.payment_method = input.payment_method
  if (input.payment_method_title !== undefined) extra.payment_method_title = input.payment_method_title
  if (input.transaction_id !== undefined) extra.transaction_id = input.transaction_id
  if (input.customer_note !== undefined) extra.customer_note = input.customer_note
  if (input.meta_data !== undefined) extra.meta_data = s.mergeMeta(extra.meta_data ?? [], input.meta_data)
  if (input.parent_id !== undefined) order.parentId = input.parent_id
}
