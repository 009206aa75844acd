// Stock levels moved by orders, as WooCommerce moves them: an order reduces its lines' stock once, when it is paid
// (set_paid) or moves to processing, completed or on-hold (wc_maybe_reduce_stock_levels), and gives it back when
// cancelled or set back to pending (wc_maybe_increase_stock_levels); a refund with api_restock returns its lines'
// quantities. Only stock-managed products and variations change (a variation with manage_stock "parent" uses
// its parent's stock); every change saves the product (date_modified moves) and leaves an order note.
// Generated orders are history: their effect is already in the generated quantities, so they never move stock.
import type { OrderRecord, OrderStatus, ProductRecord, VariationRecord } from "../model.ts"
import { stockStatusFor, touchProduct } from "./product-writes.ts"
import type { StoreState } from "../state.ts"

const REDUCING: ReadonlySet<OrderStatus> = new Set(["processing", "completed", "on-hold"])
const RESTORING: ReadonlySet<OrderStatus> = new Set(["cancelled", "pending"])

type Holder = { kind: "product"; record: ProductRecord } | { kind: "variation"; record: VariationRecord; parent: ProductRecord }

const holderOf = (s: StoreState, productId: number, variationId: number): Holder | undefined => {
  const product = s.productById.get(productId)
  if (product === undefined) return undefined
  const variation = variationId === 0 ? undefined : s.variationById.get(variationId)
  if (variation !== undefined) {
    const manage = variation.extra?.manageStock ?? variation.stockQuantity !== null
    if (manage === true) return { kind: "variation", record: variation, parent: product }
  }
  return product.manageStock ? { kind: "product", record: product } : undefined
}

/** Adds `delta` to the holder's stock; returns "Name (SKU) 20→19" for the note. */
const adjust = (s: StoreState, holder: Holder, delta: number): string => {
  const before = holder.record.stockQuantity ?? 0
  const after = before + delta
  if (holder.kind === "product") {
    const p = holder.record
    touchProduct(s, p, () => {
      p.stockQuantity = after
      p.stockStatus = stockStatusFor(after, p.extra?.backorders)
    })
    s.hooks.emit("woocommerce_update_product", p.id, "product")
    return `${p.name}${p.sku === "" ? "" : ` (${p.sku})`} ${before}&rarr;${after}`
  }
  const v = holder.record
  v.stockQuantity = after
  ;(v.extra ??= {}).stockStatus = stockStatusFor(after, v.extra.backorders)
  v.modified = s.now()
  s.hooks.emit("woocommerce_update_product_variation", v.id, "product")
  touchProduct(s, holder.parent)
  return `${holder.parent.name} - ${v.options.filter((o) => o !== "").join(", ")}${v.sku === "" ? "" : ` (${v.sku})`} ${before}&rarr;${after}`
}

const moveOrderStock = (s: StoreState, order: OrderRecord, sign: 1 | -1): void => {
  const changes: string[] = []
  for (const line of order.line_items) {
    const holder = holderOf(s, line.productId, line.variationId)
    if (holder !== undefined && line.quantity > 0) changes.push(adjust(s, holder, sign * line.quantity))
  }
  order.stockReduced = sign === -1
  if (changes.length > 0) s.notes.add(order.id, `${sign === -1 ? "Stock levels reduced:" : "Stock levels increased:"} ${changes.join(", ")}`)
}

/** Called after an order's status was set (created or updated); `paid` for set_paid. */
export const stockAfterStatus = (s: StoreState, order: OrderRecord, paid: boolean): void => {
  if (order.person > 0) return
  if ((paid || REDUCING.has(order.status)) && order.stockReduced !== true) moveOrderStock(s, order, -1)
  else if (RESTORING.has(order.status) && order.stockReduced === true) moveOrderStock(s, order, 1)
}

/** api_restock: the refunded quantities go back into stock. */
export const restockRefund = (s: StoreState, order: OrderRecord, lines: ReadonlyArray<{ orderItemId: number; quantity: number }>): void => {
  const changes: string[] = []
  for (const l of lines) {
    const line = order.line_items.find((x) => x.id === l.orderItemId)
    const holder = line === undefined ? undefined : holderOf(s, line.productId, line.variationId)
    if (holder !== undefined && l.quantity > 0) changes.push(adjust(s, holder, l.quantity))
  }
  if (changes.length > 0) s.notes.add(order.id, `Stock levels increased: ${changes.join(", ")}`)
}
