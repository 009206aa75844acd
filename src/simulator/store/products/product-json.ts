// Products and variations as the API shows them, rendered from the records (fields only ever set through writes
// live in `extra`; records without show WooCommerce's defaults). Generated products render exactly as before the
// write-only fields existed.
import { imageJson } from "./media.ts"
import type { ProductRecord, SharedExtra, VariationRecord } from "../model.ts"
import { rawDecimal } from "../money.ts"
import { type Json, type RenderContext, datePair, editOnly, links } from "../rest/render.ts"
import type { StoreState } from "../state.ts"
import { sanitizeTitle } from "../text.ts"

export const siteOf = (r: RenderContext) => r.apiUrl.replace(/\/wp-json\/.*$/, "")

/** Whether the sale price applies now: a sale price and, if a window was written, now inside it. */
export const onSaleNow = (p: { salePrice: number; extra?: SharedExtra }, now: number): boolean =>
  p.salePrice >= 0 && (p.extra?.saleFrom ?? 0) <= now && ((p.extra?.saleTo ?? 0) === 0 || now <= p.extra!.saleTo!)

/** The current price in cents, undefined for an item without a price. */
export const currentPrice = (p: { regularPrice: number; salePrice: number; extra?: SharedExtra }, now: number): number | undefined =>
  p.extra?.noPrice === true && p.salePrice < 0 ? undefined : onSaleNow(p, now) ? p.salePrice : p.regularPrice

/** The prices a product shows: its own, or its variations' (children's for a grouped product). */
export const productPrices = (s: StoreState, p: ProductRecord): number[] => {
  const now = s.now()
  const children =
    p.type === "variable"
      ? p.variationIds.map((id) => s.variationById.get(id))
      : p.type === "grouped"
        ? (p.extra?.groupedProducts ?? []).map((id) => s.productById.get(id))
        : [p]
  return children.flatMap((c) => (c === undefined ? [] : [currentPrice(c, now)])).filter((c): c is number => c !== undefined)
}

const priceHtml = (cents: number[]): string => {
  const amount = (c: number) => `<span class="woocommerce-Price-amount amount"><bdi><span class="woocommerce-Price-currencySymbol">&#36;</span>${rawDecimal(c)}</bdi></span>`
  const low = Math.min(...cents)
  const high = Math.max(...cents)
  return cents.length === 0 ? "" : low === high ? amount(low) : `${amount(low)} &ndash; ${amount(high)}`
}

export const ratingOf = (p: ProductRecord): { average: string; count: number } => {
  const count = p.ratings.reduce((a, b) => a + b, 0)
  const sum = p.ratings.reduce((a, n, i) => a + n * (i + 1), 0)
  return { average: count === 0 ? "0" : (Math.round((sum * 100) / count) / 100).toFixed(2), count }
}

const saleWindow = (r: RenderContext, extra: SharedExtra | undefined) => {
  const from = datePair(r, extra?.saleFrom ?? 0)
  const to = datePair(r, extra?.saleTo ?? 0)
  return { date_on_sale_from: from.local, date_on_sale_from_gmt: from.gmt, date_on_sale_to: to.local, date_on_sale_to_gmt: to.gmt }
}

const stockFields = (manage: boolean | "parent", quantity: number | null, status: string, extra: SharedExtra | undefined) => {
  const backorders = extra?.backorders ?? "no"
  return {
    manage_stock: manage,
    stock_quantity: manage === true ? quantity : null,
    backorders,
    backorders_allowed: backorders !== "no",
    backordered: manage === true && backorders !== "no" && (quantity ?? 0) < 0,
    low_stock_amount: extra?.lowStockAmount ?? null,
    stock_status: status,
  }
}

/** Fields products and variations share that only writes set. */
const sharedFields = (extra: SharedExtra | undefined) => ({
  virtual: extra?.virtual ?? false,
  downloadable: extra?.downloadable ?? false,
  downloads: extra?.downloads ?? [],
  download_limit: extra?.downloadLimit ?? -1,
  download_expiry: extra?.downloadExpiry ?? -1,
})

const shippingClass = (s: StoreState, extra: SharedExtra | undefined): { shipping_class: string; shipping_class_id: number } => {
  const term = extra?.shippingClass ? s.taxonomy.term("product_shipping_class", extra.shippingClass) : undefined
  return { shipping_class: term?.slug ?? "", shipping_class_id: term?.id ?? 0 }
}

const termRefs = (s: StoreState, group: "product_cat" | "product_tag" | "product_brand", ids: ReadonlyArray<number>) =>
  ids.flatMap((id) => {
    const t = s.taxonomy.term(group, id)
    return t === undefined ? [] : [{ id: t.id, name: t.name, slug: t.slug }]
  })

/** The product's attributes that still exist (a deleted global attribute leaves its products). */
const attributeJson = (s: StoreState, p: ProductRecord) =>
  p.attributes.flatMap((a, i) => {
    const global = a.id > 0 ? s.taxonomy.attributes.get(a.id) : undefined
    if (a.id > 0 && global === undefined) return []
    const slug = global === undefined ? sanitizeTitle(a.name) : `pa_${global.slug}`
    return [{ id: a.id, name: global?.name ?? a.name, slug, position: i, visible: a.visible ?? true, variation: a.variation, options: a.options }]
  })

export const permalink = (r: RenderContext, p: ProductRecord): string =>
  p.slug === "" ? `${siteOf(r)}/?post_type=product&p=${p.id}` : `${siteOf(r)}/product/${p.slug}/`

export const productJson = (s: StoreState, p: ProductRecord, r: RenderContext, imageSize = "full"): Json => {
  const created = datePair(r, p.created)
  const modified = datePair(r, p.modified)
  const x = p.extra
  const prices = productPrices(s, p)
  const now = s.now()
  const onSale =
    p.type === "variable" ? p.variationIds.some((id) => { const v = s.variationById.get(id); return v !== undefined && onSaleNow(v, now) }) : onSaleNow(p, now)
  const { average, count } = ratingOf(p)
  const images = (x?.images ?? []).flatMap((id) => {
    const image = s.media.byId.get(id)
    return image === undefined ? [] : [imageJson(r, image, imageSize)]
  })
  const ownPrice = p.type !== "variable" && p.type !== "grouped"
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    permalink: permalink(r, p),
    date_created: created.local,
    date_created_gmt: created.gmt,
    date_modified: modified.local,
    date_modified_gmt: modified.gmt,
    type: p.type,
    status: p.status,
    featured: p.featured,
    catalog_visibility: x?.catalogVisibility ?? "visible",
    description: p.description,
    short_description: p.shortDescription,
    sku: p.sku,
    price: prices.length === 0 ? "" : rawDecimal(Math.min(...prices)),
    regular_price: !ownPrice || x?.noPrice === true ? "" : rawDecimal(p.regularPrice),
    sale_price: !ownPrice || p.salePrice < 0 ? "" : rawDecimal(p.salePrice),
    ...saleWindow(r, x),
    on_sale: onSale,
    purchasable: p.status === "publish" && prices.length > 0,
    total_sales: p.totalSales,
    ...sharedFields(x),
    external_url: x?.externalUrl ?? "",
    button_text: x?.buttonText ?? "",
    tax_status: x?.taxStatus ?? "taxable",
    tax_class: x?.taxClass ?? "",
    ...stockFields(p.manageStock, p.stockQuantity, p.stockStatus, x),
    sold_individually: x?.soldIndividually ?? false,
    weight: p.weight,
    dimensions: x?.dimensions ?? { length: "", width: "", height: "" },
    shipping_required: !(x?.virtual ?? false),
    shipping_taxable: (x?.taxStatus ?? "taxable") !== "none" && !(x?.virtual ?? false),
    ...shippingClass(s, x),
    reviews_allowed: x?.reviewsAllowed ?? true,
    average_rating: average,
    rating_count: count,
    upsell_ids: x?.upsellIds ?? [],
    cross_sell_ids: x?.crossSellIds ?? [],
    parent_id: x?.parentId ?? 0,
    purchase_note: x?.purchaseNote ?? "",
    categories: termRefs(s, "product_cat", p.categories),
    tags: termRefs(s, "product_tag", x?.tags ?? []),
    images,
    attributes: attributeJson(s, p),
    default_attributes: x?.defaultAttributes ?? [],
    variations: p.type === "variable" ? p.variationIds : [],
    grouped_products: x?.groupedProducts ?? [],
    menu_order: p.menuOrder,
    price_html: priceHtml(prices),
    related_ids: [],
    meta_data: x?.metaData ?? [],
    has_options: p.type === "variable",
    ...editOnly(r, { post_password: x?.postPassword ?? "" }),
    global_unique_id: x?.globalUniqueId ?? "",
    brands: termRefs(s, "product_brand", x?.brands ?? []),
    _links: links(r, { self: `/products/${p.id}`, collection: "/products" }),
  }
}

export const variationJson = (s: StoreState, v: VariationRecord, r: RenderContext, imageSize = "full"): Json => {
  const parent = s.productById.get(v.parentId)!
  const created = datePair(r, v.created)
  const modified = datePair(r, v.modified)
  const x = v.extra
  const now = s.now()
  // Options line up with the parent's variation attributes; those of a deleted global attribute are left out.
  const attributes = parent.attributes
    .filter((a) => a.variation)
    .map((a, k) => ({ a, option: v.options[k] ?? "" }))
    .filter(({ a, option }) => option !== "" && (a.id === 0 || s.taxonomy.attributes.has(a.id)))
  const attrSlug = (a: { id: number; name: string }) => (a.id > 0 ? `pa_${s.taxonomy.attributes.get(a.id)!.slug}` : sanitizeTitle(a.name))
  const query = attributes.map(({ a, option }) => `attribute_${attrSlug(a)}=${encodeURIComponent(option.toLowerCase())}`).join("&")
  const base = permalink(r, parent)
  const price = currentPrice(v, now)
  const manage = x?.manageStock ?? v.stockQuantity !== null
  const image = x?.image ? s.media.byId.get(x.image) : undefined
  return {
    id: v.id,
    date_created: created.local,
    date_created_gmt: created.gmt,
    date_modified: modified.local,
    date_modified_gmt: modified.gmt,
    description: x?.description ?? "",
    permalink: `${base}${base.includes("?") ? "&" : "?"}${query}`,
    sku: v.sku,
    global_unique_id: x?.globalUniqueId ?? "",
    price: price === undefined ? "" : rawDecimal(price),
    regular_price: x?.noPrice === true ? "" : rawDecimal(v.regularPrice),
    sale_price: v.salePrice < 0 ? "" : rawDecimal(v.salePrice),
    ...saleWindow(r, x),
    on_sale: onSaleNow(v, now),
    status: x?.status ?? "publish",
    purchasable: price !== undefined && (x?.status ?? "publish") === "publish",
    ...sharedFields(x),
    tax_status: x?.taxStatus ?? "taxable",
    tax_class: x?.taxClass ?? "",
    ...stockFields(manage, v.stockQuantity, x?.stockStatus ?? (v.stockQuantity === 0 ? "outofstock" : "instock"), x),
    weight: v.weight,
    dimensions: x?.dimensions ?? { length: "", width: "", height: "" },
    ...shippingClass(s, x),
    image: image === undefined ? null : imageJson(r, image, imageSize),
    ...(x?.galleryImageIds === undefined ? {} : { gallery_image_ids: x.galleryImageIds }),
    attributes: attributes.map(({ a, option }) => ({ id: a.id, name: a.id > 0 ? s.taxonomy.attributes.get(a.id)!.name : a.name, slug: attrSlug(a), option })),
    menu_order: x?.menuOrder ?? 0,
    meta_data: x?.metaData ?? [],
    name: `${parent.name} - ${attributes.map(({ option }) => option).join(", ")}`,
    parent_id: v.parentId,
    _links: links(r, { self: `/products/${v.parentId}/variations/${v.id}`, collection: `/products/${v.parentId}/variations`, up: `/products/${v.parentId}` }),
  }
}
