// A customer's download permissions (GET /customers/<id>/downloads): WooCommerce grants one per file of each
// downloadable product (or variation) in the customer's orders once an order is processing or completed; the
// limit and expiry come from the product, the expiry counting from the grant (the payment date).
import { createHash } from "node:crypto"
import type { CustomerRecord, Download, OrderRecord, SharedExtra } from "../model.ts"
import { orderKeyOf } from "../orders/order-json.ts"
import { siteOf } from "../products/product-json.ts"
import { type Json, type RenderContext, datePair } from "../rest/render.ts"
import type { StoreState } from "../state.ts"
import { DAY } from "../dates.ts"

const GRANTED: ReadonlySet<string> = new Set(["processing", "completed"])

const downloadsOf = (s: StoreState, productId: number, variationId: number): { extra: SharedExtra | undefined; name: string } | undefined => {
  const product = s.productById.get(productId)
  if (product === undefined) return undefined
  const variation = variationId === 0 ? undefined : s.variationById.get(variationId)
  const extra = variation?.extra?.downloadable ? variation.extra : product.extra
  return extra?.downloadable ? { extra, name: product.name } : undefined
}

const permission = (r: RenderContext, c: CustomerRecord, o: OrderRecord, productId: number, name: string, extra: SharedExtra, file: Download): Json => {
  const key = orderKeyOf(o)
  const granted = o.paid > 0 ? o.paid : o.created
  const expires = (extra.downloadExpiry ?? -1) > 0 ? datePair(r, granted + extra.downloadExpiry! * DAY) : undefined
  const downloadId = createHash("md5").update(`${file.id}:${o.id}`).digest("hex")
  return {
    download_id: downloadId,
    download_url: `${siteOf(r)}/?download_file=${productId}&order=${key}&email=${encodeURIComponent(c.email)}&key=${file.id}`,
    product_id: productId,
    product_name: name,
    download_name: file.name,
    order_id: o.id,
    order_key: key,
    downloads_remaining: (extra.downloadLimit ?? -1) < 0 ? "unlimited" : String(extra.downloadLimit),
    access_expires: expires?.local ?? "never",
    access_expires_gmt: expires?.gmt ?? "never",
    file: { name: file.name, file: file.file },
  }
}

export const customerDownloads = (s: StoreState, c: CustomerRecord, r: RenderContext): Json[] => {
  const out: Json[] = []
  for (const o of s.liveOrders.by.id.items) {
    if (o.customerId !== c.id || !GRANTED.has(o.status)) continue
    for (const line of o.line_items) {
      const found = downloadsOf(s, line.productId, line.variationId)
      for (const file of found?.extra?.downloads ?? []) out.push(permission(r, c, o, line.productId, found!.name, found!.extra!, file))
    }
  }
  return out
}
