// Product writes, with WooCommerce's rules: SKUs unique across products and variations, slugs made unique (drafts
// keep none until published), a product without categories gets the default one, a global attribute's new options
// become terms, a trash that an update with a status reverses, and a force delete that takes the variations and
// reviews along. A write either applies entirely or not at all.
import { createHash } from "node:crypto"
import { type SiteTime, parseDay, parseFilterDate } from "../dates.ts"
import { invalidId, wcError } from "../rest/errors.ts"
import type { ProductAttribute, ProductRecord, SharedExtra, VariationRecord } from "../model.ts"
import { parseCents } from "../money.ts"
import type { ProductInput, SharedInput } from "./product-input.ts"
import type { StoreState } from "../state.ts"
import { DEFAULT_CATEGORY } from "../taxonomy/taxonomy.ts"
import { sanitizeTitle, uniqueSlug } from "../text.ts"

/** Re-indexes the product around a change and stamps date_modified (unless the change failed). */
export const touchProduct = (s: StoreState, p: ProductRecord, mutate: () => void = () => {}): void => {
  s.productIndex.remove(p)
  try {
    mutate()
    p.modified = s.now()
  } finally {
    s.productIndex.add(p)
  }
}

/** Applies a write to an existing record, or nothing of it when it fails half-way (a bad image id, say). */
export const allOrNothing = <T extends object>(record: T, apply: () => void): void => {
  const before = structuredClone(record)
  try {
    apply()
  } catch (error) {
    for (const key of Object.keys(record)) if (!(key in before)) delete record[key as keyof T]
    Object.assign(record, before)
    throw error
  }
}

const price = (value: string | number | undefined, name: string): number | undefined => {
  if (value === undefined || value === "") return undefined
  const cents = parseCents(value)
  if (cents === undefined || cents < 0) throw wcError(400, "rest_invalid_param", `Invalid parameter(s): ${name}`, { params: { [name]: `${name} is not a valid price.` } })
  return cents
}

/** A sale date as written: site-local (or GMT for the _gmt field), date-only meaning midnight; "" clears. */
const saleDate = (site: SiteTime, local: string | undefined, gmt: string | undefined, name: string): number | undefined => {
  const value = gmt ?? local
  if (value === undefined) return undefined
  if (value === "") return 0
  const day = parseDay(value)
  const wall = day ?? parseFilterDate(value.replace(/Z$|[+-]\d{2}:?\d{2}$/, ""), site)
  if (wall === undefined) throw wcError(400, "rest_invalid_param", `Invalid parameter(s): ${name}`, { params: { [name]: "Invalid date." } })
  return gmt !== undefined ? wall : site.fromWall(wall)
}

const skuTaken = (s: StoreState, sku: string, self: number): boolean =>
  sku !== "" && ([...s.productById.values()].some((p) => p.id !== self && p.sku === sku) || [...s.variationById.values()].some((v) => v.id !== self && v.sku === sku))

export const checkSku = (s: StoreState, sku: string | undefined, self: number): void => {
  if (sku !== undefined && skuTaken(s, sku, self)) throw wcError(400, "product_invalid_sku", "Invalid or duplicated SKU.")
}

const freeProductSlug = (s: StoreState, base: string, self: number): string =>
  base === "" ? "" : uniqueSlug(base, (slug) => [...s.productById.values()].some((p) => p.id !== self && p.slug === slug))

/** The fields products and variations share, onto the record and its extra. */
export const applyShared = (s: StoreState, target: ProductRecord | VariationRecord, extra: SharedExtra, input: SharedInput): void => {
  const regular = price(input.regular_price, "regular_price")
  const sale = price(input.sale_price, "sale_price")
  const from = saleDate(s.site, input.date_on_sale_from, input.date_on_sale_from_gmt, "date_on_sale_from")
  const to = saleDate(s.site, input.date_on_sale_to, input.date_on_sale_to_gmt, "date_on_sale_to")
  if (input.sku !== undefined) target.sku = input.sku
  if (input.regular_price !== undefined) {
    target.regularPrice = regular ?? 0
    extra.noPrice = regular === undefined
  }
  if (input.sale_price !== undefined) target.salePrice = sale ?? -1
  if (from !== undefined) extra.saleFrom = from
  if (to !== undefined) extra.saleTo = to
  if (input.global_unique_id !== undefined) extra.globalUniqueId = input.global_unique_id
  if (input.virtual !== undefined) extra.virtual = input.virtual
  if (input.downloadable !== undefined) extra.downloadable = input.downloadable
  if (input.downloads !== undefined) {
    // A file without an id gets one: WooCommerce uses an md5 of the URL.
    extra.downloads = input.downloads.map((d) => ({ id: d.id ?? createHash("md5").update(d.file ?? "").digest("hex"), name: d.name ?? "", file: d.file ?? "" }))
  }
  if (input.download_limit !== undefined) extra.downloadLimit = input.download_limit
  if (input.download_expiry !== undefined) extra.downloadExpiry = input.download_expiry
  if (input.tax_status !== undefined) extra.taxStatus = input.tax_status
  if (input.tax_class !== undefined) extra.taxClass = input.tax_class === "standard" ? "" : input.tax_class
  if (input.backorders !== undefined) extra.backorders = input.backorders
  if (input.low_stock_amount !== undefined) extra.lowStockAmount = input.low_stock_amount
  if (input.weight !== undefined) target.weight = input.weight
  if (input.dimensions !== undefined) extra.dimensions = { length: "", width: "", height: "", ...extra.dimensions, ...input.dimensions }
  if (input.shipping_class !== undefined) extra.shippingClass = s.taxonomy.termBySlug("product_shipping_class", input.shipping_class)?.id ?? 0
  if (input.meta_data !== undefined) extra.metaData = s.mergeMeta(extra.metaData ?? [], input.meta_data)
}

/** Stock status follows the quantity for a stock-managed item (WooCommerce's validate_props). */
export const stockStatusFor = (quantity: number, backorders: string | undefined): ProductRecord["stockStatus"] =>
  quantity > 0 ? "instock" : (backorders ?? "no") === "no" ? "outofstock" : "onbackorder"

const applyAttributes = (s: StoreState, p: ProductRecord, input: NonNullable<ProductInput["attributes"]>): void => {
  const before = variationKeys(p)
  const attributes: (ProductAttribute & { position: number })[] = []
  input.forEach((a, i) => {
    const global = a.id !== undefined && a.id > 0 ? s.taxonomy.attributes.get(a.id) : undefined
    if (a.id !== undefined && a.id > 0 && global === undefined) return
    const name = global?.name ?? a.name?.trim() ?? ""
    if (name === "") return
    const options = [...new Set((a.options ?? []).map((o) => o.trim()).filter((o) => o !== ""))]
    if (global !== undefined) for (const o of options) s.taxonomy.ensureAttributeTerm(global.id, o)
    attributes.push({ id: global?.id ?? 0, name, options, variation: a.variation ?? false, visible: a.visible ?? false, position: a.position ?? i })
  })
  p.attributes = attributes.sort((x, y) => x.position - y.position).map(({ position: _, ...rest }) => rest)
  // Variations keep their chosen options by attribute, whatever the new order of the parent's attributes.
  const after = variationKeys(p)
  for (const id of p.variationIds) {
    const v = s.variationById.get(id)!
    const chosen = new Map(before.map((key, k) => [key, v.options[k] ?? ""]))
    v.options = after.map((key) => chosen.get(key) ?? "")
  }
}

/** Keys of the parent's variation attributes, in order (global id, or name for a product's own attribute). */
const variationKeys = (p: ProductRecord): string[] => p.attributes.filter((a) => a.variation).map((a) => (a.id > 0 ? `#${a.id}` : a.name.toLowerCase()))

const applyProduct = (s: StoreState, p: ProductRecord, input: ProductInput): void => {
  checkSku(s, input.sku, p.id)
  const extra = (p.extra ??= {})
  applyShared(s, p, extra, input)
  if (input.name !== undefined) p.name = input.name
  if (input.type !== undefined) p.type = input.type
  if (input.status !== undefined) {
    p.status = input.status
    delete extra.trashedFrom
  }
  if (input.slug !== undefined) p.slug = freeProductSlug(s, sanitizeTitle(input.slug), p.id)
  // WordPress names a post when it is published, not before.
  if (p.slug === "" && p.status === "publish") p.slug = freeProductSlug(s, sanitizeTitle(p.name), p.id)
  if (input.featured !== undefined) p.featured = input.featured
  if (input.catalog_visibility !== undefined) extra.catalogVisibility = input.catalog_visibility
  if (input.description !== undefined) p.description = input.description
  if (input.short_description !== undefined) p.shortDescription = input.short_description
  if (input.manage_stock !== undefined) p.manageStock = input.manage_stock
  if (input.stock_quantity !== undefined) p.stockQuantity = input.stock_quantity
  if (input.stock_status !== undefined) p.stockStatus = input.stock_status
  // A stock-managed product's status follows its quantity, whatever status was sent.
  if (p.manageStock && (input.manage_stock !== undefined || input.stock_quantity !== undefined || input.backorders !== undefined || input.stock_status !== undefined)) {
    p.stockQuantity ??= 0
    p.stockStatus = stockStatusFor(p.stockQuantity, extra.backorders)
  }
  if (input.menu_order !== undefined) p.menuOrder = input.menu_order
  if (input.external_url !== undefined) extra.externalUrl = input.external_url
  if (input.button_text !== undefined) extra.buttonText = input.button_text
  if (input.sold_individually !== undefined) extra.soldIndividually = input.sold_individually
  if (input.reviews_allowed !== undefined) extra.reviewsAllowed = input.reviews_allowed
  if (input.upsell_ids !== undefined) extra.upsellIds = input.upsell_ids
  if (input.cross_sell_ids !== undefined) extra.crossSellIds = input.cross_sell_ids
  if (input.grouped_products !== undefined) extra.groupedProducts = input.grouped_products
  if (input.parent_id !== undefined) extra.parentId = input.parent_id
  if (input.purchase_note !== undefined) extra.purchaseNote = input.purchase_note
  if (input.post_password !== undefined) extra.postPassword = input.post_password
  // Term ids that do not exist are skipped, as wp_set_object_terms skips them.
  if (input.categories !== undefined) p.categories = input.categories.filter((id) => s.taxonomy.term("product_cat", id) !== undefined)
  if (p.categories.length === 0) p.categories = [DEFAULT_CATEGORY]
  if (input.tags !== undefined) extra.tags = input.tags.filter((id) => s.taxonomy.term("product_tag", id) !== undefined)
  if (input.brands !== undefined) extra.brands = input.brands.filter((id) => s.taxonomy.term("product_brand", id) !== undefined)
  if (input.images !== undefined) extra.images = input.images.map((img) => s.media.resolve(img).id)
  if (input.attributes !== undefined) applyAttributes(s, p, input.attributes)
  if (input.default_attributes !== undefined) {
    extra.defaultAttributes = input.default_attributes
      .map((d) => {
        const a = p.attributes.find((x) => (d.id !== undefined && d.id > 0 ? x.id === d.id : x.name.toLowerCase() === (d.name ?? "").toLowerCase()))
        return a === undefined ? undefined : { id: a.id, name: a.name, option: a.options.find((o) => o.toLowerCase() === (d.option ?? "").toLowerCase()) ?? d.option ?? "" }
      })
      .filter((d): d is { id: number; name: string; option: string } => d !== undefined)
  }
}

export const createProduct = (s: StoreState, input: ProductInput): ProductRecord => {
  checkSku(s, input.sku, 0)
  const now = s.now()
  const p: ProductRecord = {
    id: s.ids.take("post"),
    name: "Product",
    slug: "",
    sku: "",
    type: "simple",
    status: "publish",
    featured: false,
    description: "",
    shortDescription: "",
    regularPrice: 0,
    salePrice: -1,
    created: now,
    modified: now,
    manageStock: false,
    stockQuantity: null,
    stockStatus: "instock",
    totalSales: 0,
    categories: [],
    attributes: [],
    variationIds: [],
    weight: "",
    menuOrder: 0,
    ratings: [0, 0, 0, 0, 0],
    extra: { noPrice: true },
  }
  applyProduct(s, p, input)
  s.productById.set(p.id, p)
  s.productIndex.add(p)
  s.hooks.emit("woocommerce_new_product", p.id, "product")
  return p
}

export const updateProduct = (s: StoreState, id: number, input: ProductInput): ProductRecord => {
  const p = s.productById.get(id)
  if (p === undefined) throw invalidId("product", 400)
  checkSku(s, input.sku, p.id)
  const wasTrashed = p.status === "trash"
  touchProduct(s, p, () => allOrNothing(p, () => applyProduct(s, p, input)))
  if (wasTrashed && p.status !== "trash") s.hooks.emit("untrashed_post", p.id, "product")
  s.hooks.emit("woocommerce_update_product", p.id, "product")
  return p
}

export const trashProduct = (s: StoreState, id: number): ProductRecord => {
  const p = s.productById.get(id)
  if (p === undefined) throw invalidId("product")
  if (p.status === "trash") throw wcError(410, "woocommerce_rest_already_trashed", "The product has already been deleted.")
  touchProduct(s, p, () => {
    ;(p.extra ??= {}).trashedFrom = p.status
    p.status = "trash"
  })
  s.hooks.emit("wp_trash_post", p.id, "product")
  return p
}

/** Gone for good with its variations and reviews; order lines keep showing its name. */
export const deleteProduct = (s: StoreState, id: number): ProductRecord => {
  const p = s.productById.get(id)
  if (p === undefined) throw invalidId("product")
  for (const vid of p.variationIds) s.variationById.delete(vid)
  s.productIndex.remove(p)
  s.productById.delete(id)
  s.deletedProducts.set(id, p)
  s.reviews.deleteForProduct(id)
  s.hooks.emit("woocommerce_delete_product", id, "product")
  return p
}

/** WC_Admin_Duplicate_Product: a draft "(Copy)" without slug, sales or ratings, SKUs suffixed -1, -2, ... */
export const duplicateProduct = (s: StoreState, id: number): ProductRecord => {
  const source = s.productById.get(id)
  if (source === undefined) throw invalidId("product")
  const now = s.now()
  // wc_product_generate_unique_sku: the first free of sku-1, sku-2, ...
  const copySku = (sku: string): string => {
    if (sku === "") return ""
    for (let n = 1; ; n++) if (!skuTaken(s, `${sku}-${n}`, 0)) return `${sku}-${n}`
  }
  const extra = structuredClone(source.extra ?? {})
  delete extra.globalUniqueId
  delete extra.trashedFrom
  const copy: ProductRecord = {
    ...structuredClone({ ...source, extra: undefined }),
    id: s.ids.take("post"),
    name: `${source.name} (Copy)`,
    slug: "",
    sku: copySku(source.sku),
    status: "draft",
    created: now,
    modified: now,
    totalSales: 0,
    ratings: [0, 0, 0, 0, 0],
    variationIds: [],
    extra,
  }
  s.productById.set(copy.id, copy)
  for (const vid of source.variationIds) {
    const v = s.variationById.get(vid)!
    const child: VariationRecord = { ...structuredClone(v), id: s.ids.take("post"), parentId: copy.id, sku: copySku(v.sku), created: now, modified: now }
    s.variationById.set(child.id, child)
    copy.variationIds.push(child.id)
  }
  s.productIndex.add(copy)
  s.hooks.emit("woocommerce_new_product", copy.id, "product")
  return copy
}
