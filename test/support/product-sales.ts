// analytics.daily_product_sales as the store's own documents give it: what merchant-marts checks the mart against,
// and what the status page's top products are ranked from. Never computed from the warehouse.
import { cents, COUNTED, fetchAll } from "./api.js"

type Doc = Record<string, any>

/** One store-local day, currency, product and variation: money in integer cents. */
export interface ProductDay {
  readonly day: string
  readonly currency: string
  readonly productId: number
  readonly variationId: number
  /** The lines' name: the product's, "Hoodie - Blue, L" for a variation (the simulator names lines from its current catalogue). */
  readonly name: string
  readonly orders: Set<number>
  quantity: number
  gross: number
  refundedQuantity: number
  refunded: number
}

/** The counted orders (trash included, so a status read from it counts as it does) and the refunds of those orders. */
export const countedSales = async (apiUrl: string): Promise<{ readonly orders: Array<Doc>; readonly refunds: Array<Doc> }> => {
  const all = [...await fetchAll(apiUrl, "/orders", { status: "any" }), ...await fetchAll(apiUrl, "/orders", { status: "trash" })]
  const orders = all.filter((o) => COUNTED.has(o.status))
  const counted = new Set(orders.map((o) => o.id))
  return { orders, refunds: (await fetchAll(apiUrl, "/refunds")).filter((r) => counted.has(r.parent_id)) }
}

/**
 * Per "day currency product_id variation_id": an order's lines on the order's local day, a refund's lines on the
 * refund's own day (the API gives them negative; here positive), in the order's currency.
 */
export const productSales = (orders: ReadonlyArray<Doc>, refunds: ReadonlyArray<Doc>): Map<string, ProductDay> => {
  const rows = new Map<string, ProductDay>()
  const row = (day: string, currency: string, line: Doc) => {
    const key = `${day} ${currency} ${line.product_id} ${line.variation_id}`
    const found = rows.get(key)
    if (found !== undefined) return found
    const created: ProductDay = {
      day, currency, productId: line.product_id, variationId: line.variation_id, name: line.name, orders: new Set(), quantity: 0, gross: 0, refundedQuantity: 0, refunded: 0
    }
    rows.set(key, created)
    return created
  }
  const currencyOf = new Map(orders.map((o) => [o.id, o.currency]))
  for (const o of orders) {
    for (const line of o.line_items) {
      const r = row(o.date_created.slice(0, 10), o.currency, line)
      r.orders.add(o.id)
      r.quantity += line.quantity
      r.gross += cents(line.total)
    }
  }
  for (const refund of refunds) {
    for (const line of refund.line_items) {
      const r = row(refund.date_created.slice(0, 10), currencyOf.get(refund.parent_id)!, line)
      r.refundedQuantity -= line.quantity
      r.refunded -= cents(line.total)
    }
  }
  return rows
}
