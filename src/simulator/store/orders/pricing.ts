// Order arithmetic in integer cents, shared by the generator and the write endpoints so every order's
// totals agree with its lines: total = Σ line totals + Σ line taxes + shipping + shipping tax + fees.
import { type Coupon, TAX_RATES } from "../catalog.ts"
import type { LineRecord, OrderRecord } from "../model.ts"

export interface LineInput {
  itemId: number
  productId: number
  variationId: number
  quantity: number
  subtotal: number
  /** An explicit after-discount total (a client may send one); otherwise the coupon decides. */
  total?: number
}

export const taxOn = (cents: number, taxRate: number): number =>
  taxRate < 0 ? 0 : Math.round((cents * TAX_RATES[taxRate]!.ppm) / 1_000_000)

const discounts = (items: ReadonlyArray<LineInput>, coupon: Coupon | undefined): number[] => {
  if (coupon === undefined) return items.map(() => 0)
  switch (coupon.type) {
    case "percent":
      return items.map((l) => Math.round((l.subtotal * coupon.amount) / 100))
    case "fixed_product":
      return items.map((l) => Math.min(l.subtotal, coupon.amount * l.quantity))
    case "fixed_cart": {
      const sum = items.reduce((s, l) => s + l.subtotal, 0)
      const amount = Math.min(coupon.amount, sum)
      const shares = items.map((l) => (sum === 0 ? 0 : Math.floor((amount * l.subtotal) / sum)))
      let left = amount - shares.reduce((s, d) => s + d, 0)
      for (let i = 0; left > 0 && i < items.length; i++) {
        const room = Math.min(left, items[i]!.subtotal - shares[i]!)
        shares[i]! += room
        left -= room
      }
      return shares
    }
  }
}

/** Order lines with totals (after the coupon) and taxes computed. */
export const buildLines = (items: ReadonlyArray<LineInput>, coupon: Coupon | undefined, taxRate: number): LineRecord[] => {
  const off = discounts(items, coupon)
  return items.map((l, i) => {
    const total = l.total ?? l.subtotal - off[i]!
    return { id: l.itemId, productId: l.productId, variationId: l.variationId, quantity: l.quantity, subtotal: l.subtotal, total, tax: taxOn(total, taxRate) }
  })
}

export const sumOf = <T>(items: ReadonlyArray<T>, value: (t: T) => number): number => {
  let sum = 0
  for (const item of items) sum += value(item)
  return sum
}

export const orderTotal = (o: Pick<OrderRecord, "line_items" | "shipping" | "shippingTax" | "fees">): number =>
  sumOf(o.line_items, (l) => l.total + l.tax) + o.shipping + o.shippingTax + sumOf(o.fees ?? [], (f) => f.total)

/** Discount and its tax, as WooCommerce reports them: subtotal minus total per line. */
export const discountOf = (o: Pick<OrderRecord, "line_items" | "taxRate">): { discount: number; discountTax: number } => ({
  discount: sumOf(o.line_items, (l) => l.subtotal - l.total),
  discountTax: sumOf(o.line_items, (l) => taxOn(l.subtotal, o.taxRate) - l.tax),
})
