// An order as the API shows it, rendered from the compact record (identity, payment details and the like of
// generated orders derive from the record's person seed and id, so nothing per order is stored as text).
import { COUPONS, CURRENCIES, PAYMENT_METHODS, TAX_RATES, WC_VERSION, rateCode } from "../catalog.ts"
import type { Address, OrderRecord } from "../model.ts"
import { formatMoney, rawDecimal } from "../money.ts"
import { emptyAddress, personFor } from "../people.ts"
import { discountOf, sumOf, taxOn } from "./pricing.ts"
import { type Json, type RenderContext, datePair, links } from "../rest/render.ts"
import type { StoreState } from "../state.ts"
import { hashInts } from "../../http/prng.ts"

const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
]
const NOTES = ["Please leave the parcel at the back door.", "Gift - no invoice in the box please.", "Call before delivery."]
const SOURCES = ["google", "(direct)", "newsletter", "facebook"]
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

const token = (length: number, ...seed: number[]): string => {
  let out = ""
  for (let i = 0; out.length < length; i++) out += BASE62[hashInts(...seed, i) % 62]
  return out
}
const hex = (length: number, ...seed: number[]): string => {
  let out = ""
  for (let i = 0; out.length < length; i++) out += hashInts(...seed, i).toString(16).padStart(8, "0")
  return out.slice(0, length)
}

export const orderKeyOf = (o: OrderRecord): string => `wc_order_${token(13, o.id, 11)}`

/** A line's display name: "Hoodie - Blue, L" for a variation, as WooCommerce stores it. */
export const lineName = (s: StoreState, productId: number, variationId: number): { name: string; sku: string; parentName: string | null } => {
  // A product deleted for good still names the lines that bought it, as WooCommerce stores line names.
  const product = s.productById.get(productId) ?? s.deletedProducts.get(productId)
  if (product === undefined) return { name: "Deleted product", sku: "", parentName: null }
  const variation = variationId === 0 ? undefined : s.variationById.get(variationId)
  if (variation === undefined) return { name: product.name, sku: product.sku, parentName: null }
  return { name: `${product.name} - ${variation.options.filter((o) => o !== "").join(", ")}`, sku: variation.sku, parentName: product.name }
}

export const orderAddresses = (o: OrderRecord): { billing: Address; shipping: Address } => {
  const person = o.person > 0 ? personFor(o.person) : undefined
  const billing = { ...(person?.billing ?? emptyAddress(true)), ...o.extra?.billing }
  // Guests type their e-mail by hand: some use capitals, which a contact sync has to normalise.
  if (person !== undefined && o.customerId === 0 && o.extra?.billing?.email === undefined && hashInts(o.id, 3) % 12 === 0) {
    billing.email = billing.email!.replace(/(^|[.@])([a-z])/g, (_, sep: string, c: string) => sep + c.toUpperCase())
  }
  return { billing, shipping: { ...(person?.shipping ?? emptyAddress(false)), ...o.extra?.shipping } }
}

export const orderJson = (s: StoreState, o: OrderRecord, r: RenderContext): Json => {
  const money = (cents: number) => formatMoney(cents, r.dp)
  const generated = o.person > 0
  const rate = o.taxRate >= 0 ? TAX_RATES[o.taxRate] : undefined
  const fees = o.fees ?? []
  const cartTax = sumOf(o.line_items, (l) => l.tax)
  const { discount, discountTax } = discountOf(o)
  const { billing, shipping } = orderAddresses(o)
  const pay = PAYMENT_METHODS[hashInts(o.id, 5) % PAYMENT_METHODS.length]!
  const paymentMethod = o.extra?.payment_method ?? (generated ? pay.id : "")
  const orderKey = orderKeyOf(o)
  const created = datePair(r, o.created)
  const modified = datePair(r, o.modified)
  const completed = datePair(r, o.completed)
  const paid = datePair(r, o.paid)
  const taxes = (cents: number, subtotal: number | string) => (rate === undefined ? [] : [{ id: rate.id, total: rawDecimal(cents), subtotal: typeof subtotal === "number" ? rawDecimal(subtotal) : subtotal }])
  const siteUrl = r.apiUrl.replace(/\/wp-json\/.*$/, "")

  const lineItems = o.line_items.map((l) => {
    const { name, sku, parentName } = lineName(s, l.productId, l.variationId)
    const variation = s.variationById.get(l.variationId)
    const attributes = variation === undefined ? [] : (s.productById.get(l.productId)?.attributes.filter((a) => a.variation) ?? [])
    const subtotalTax = taxOn(l.subtotal, o.taxRate)
    return {
      id: l.id,
      name,
      product_id: l.productId,
      variation_id: l.variationId,
      quantity: l.quantity,
      tax_class: "",
      subtotal: money(l.subtotal),
      subtotal_tax: money(subtotalTax),
      total: money(l.total),
      total_tax: money(l.tax),
      taxes: taxes(l.tax, subtotalTax),
      meta_data: attributes.map((a, k) => ({
        id: l.id * 8 + k,
        key: `pa_${a.name.toLowerCase()}`,
        value: variation!.options[k]!.toLowerCase(),
        display_key: a.name,
        display_value: variation!.options[k]!,
      })),
      sku,
      price: l.quantity === 0 ? 0 : l.total / 100 / l.quantity,
      image: { id: "", src: "" },
      parent_name: parentName,
    }
  })

  const method = o.shipMethod >= 0 ? s.shippingMethods[o.shipMethod] : undefined
  const shippingLines =
    method === undefined
      ? []
      : [
          {
            id: o.itemBase,
            method_title: method.title,
            method_id: method.id,
            instance_id: String(o.shipMethod + 1),
            total: money(o.shipping),
            total_tax: money(o.shippingTax),
            taxes: taxes(o.shippingTax, ""),
            meta_data: [],
          },
        ]
  const feeLines = fees.map((f, k) => ({
    id: o.itemBase + 1 + k,
    name: f.name,
    tax_class: "",
    tax_status: "none",
    amount: rawDecimal(f.total),
    total: money(f.total),
    total_tax: money(0),
    taxes: [],
    meta_data: [],
  }))
  const couponCode = o.coupon >= 0 ? COUPONS[o.coupon]!.code : undefined
  const couponLines =
    couponCode === undefined ? [] : [{ id: o.itemBase + 1 + fees.length, code: couponCode, discount: rawDecimal(discount), discount_tax: rawDecimal(discountTax), meta_data: [] }]
  const taxLines =
    rate === undefined
      ? []
      : [
          {
            id: o.itemBase + 2 + fees.length,
            rate_code: rateCode(rate),
            rate_id: rate.id,
            label: rate.name,
            compound: false,
            tax_total: money(cartTax),
            shipping_tax_total: money(o.shippingTax),
            rate_percent: rate.ppm / 10000,
            meta_data: [],
          },
        ]
  const refunds = o.refundIds
    .map((id) => s.refundById.get(id)!)
    .sort((a, b) => b.created - a.created || b.id - a.id)
    .map((f) => ({ id: f.id, reason: f.reason, total: `-${money(f.amount)}` }))

  const orderLinks: Record<string, string> = { self: `/orders/${o.id}`, collection: "/orders" }
  if (o.customerId > 0) orderLinks["customer"] = `/customers/${o.customerId}`

  return {
    id: o.id,
    parent_id: o.parentId,
    status: o.status,
    currency: o.currency,
    version: WC_VERSION,
    prices_include_tax: false,
    date_created: created.local,
    date_modified: modified.local,
    discount_total: money(discount),
    discount_tax: money(discountTax),
    shipping_total: money(o.shipping),
    shipping_tax: money(o.shippingTax),
    cart_tax: money(cartTax),
    total: money(o.total),
    total_tax: money(cartTax + o.shippingTax),
    customer_id: o.customerId,
    order_key: orderKey,
    billing,
    shipping,
    payment_method: paymentMethod,
    payment_method_title: o.extra?.payment_method_title ?? (generated ? pay.title : ""),
    transaction_id: o.extra?.transaction_id ?? (generated && o.paid > 0 && pay.prefix !== "" ? `${pay.prefix}${token(24, o.id, 13)}` : ""),
    customer_ip_address: generated ? `${(hashInts(o.id, 17) % 223) + 1}.${hashInts(o.id, 19) % 256}.${hashInts(o.id, 23) % 256}.${(hashInts(o.id, 29) % 254) + 1}` : "",
    customer_user_agent: generated ? AGENTS[hashInts(o.id, 31) % AGENTS.length] : "",
    created_via: o.createdVia,
    customer_note: o.extra?.customer_note ?? (generated && hashInts(o.id, 37) % 20 === 0 ? NOTES[hashInts(o.id, 41) % NOTES.length] : ""),
    date_completed: completed.local,
    date_paid: paid.local,
    cart_hash: o.createdVia === "checkout" ? hex(32, o.id, 43) : "",
    number: String(o.id),
    meta_data: o.extra?.meta_data ?? (generated && hashInts(o.id, 47) % 2 === 0 ? [{ id: o.id * 4, key: "_wc_order_attribution_utm_source", value: SOURCES[hashInts(o.id, 53) % SOURCES.length] }] : []),
    line_items: lineItems,
    tax_lines: taxLines,
    shipping_lines: shippingLines,
    fee_lines: feeLines,
    coupon_lines: couponLines,
    refunds,
    payment_url: `${siteUrl}/checkout/order-pay/${o.id}/?pay_for_order=true&key=${orderKey}`,
    is_editable: ["pending", "on-hold", "checkout-draft"].includes(o.status),
    needs_payment: ["pending", "failed"].includes(o.status) && o.total > 0,
    needs_processing: true,
    date_created_gmt: created.gmt,
    date_modified_gmt: modified.gmt,
    date_completed_gmt: completed.gmt,
    date_paid_gmt: paid.gmt,
    currency_symbol: CURRENCIES[o.currency]?.symbol ?? o.currency,
    // The order's e-mail templates can be embedded (?_embed) in order responses (seed part 2 §4.6 rule 6).
    _links: { ...links(r, orderLinks), email_templates: [{ embeddable: true, href: `${r.apiUrl}/orders/${o.id}/actions/email_templates` }] },
  }
}
