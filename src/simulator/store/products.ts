// /products and /products/<id>/variations routes.
import { type Reply, json } from "../http/reply.ts"
import type { Router } from "../http/router.ts"
import type { Handler, RequestContext } from "./app.ts"
import { CATEGORIES } from "./catalog.ts"
import { invalidId } from "./errors.ts"
import { productInput } from "./input.ts"
import { type CommonList, idFilter, includeOrder, readCommonList } from "./list-params.ts"
import { listReply, pageOf } from "./list-reply.ts"
import { type ProductRecord, type VariationRecord, priceOf } from "./model.ts"
import { rawDecimal } from "./money.ts"
import { type ListPlan, runList, within } from "./query.ts"
import { type Json, type RenderContext, datePair, links, pickFields } from "./render.ts"
import type { StoreState } from "./state.ts"

const ORDERBY = ["date", "id", "include", "title", "slug", "modified", "price", "popularity", "rating", "menu_order"] as const
const VARIATION_ORDERBY = ["date", "id", "include", "title", "slug", "modified"] as const
const STATUS = ["any", "future", "trash", "draft", "pending", "private", "publish"] as const

const siteOf = (r: RenderContext) => r.apiUrl.replace(/\/wp-json\/.*$/, "")

const priceHtml = (cents: number[]): string => {
  const amount = (c: number) => `<span class="woocommerce-Price-amount amount"><bdi><span class="woocommerce-Price-currencySymbol">&#36;</span>${rawDecimal(c)}</bdi></span>`
  const low = Math.min(...cents)
  const high = Math.max(...cents)
  return cents.length === 0 ? "" : low === high ? amount(low) : `${amount(low)} &ndash; ${amount(high)}`
}

const ratingOf = (p: ProductRecord): { average: string; count: number } => {
  const count = p.ratings.reduce((a, b) => a + b, 0)
  const sum = p.ratings.reduce((a, n, i) => a + n * (i + 1), 0)
  return { average: count === 0 ? "0" : (Math.round((sum * 100) / count) / 100).toFixed(2), count }
}

const saleWindow = (r: RenderContext) => {
  const none = datePair(r, 0)
  return { date_on_sale_from: none.local, date_on_sale_from_gmt: none.gmt, date_on_sale_to: none.local, date_on_sale_to_gmt: none.gmt }
}

const stockFields = (manage: boolean, quantity: number | null, status: string) => ({
  manage_stock: manage,
  stock_quantity: manage ? quantity : null,
  backorders: "no",
  backorders_allowed: false,
  backordered: false,
  low_stock_amount: null,
  stock_status: status,
})

const productJson = (s: StoreState, p: ProductRecord, r: RenderContext): Json => {
  const created = datePair(r, p.created)
  const modified = datePair(r, p.modified)
  const variations = p.variationIds.map((id) => s.variationById.get(id)).filter((v): v is VariationRecord => v !== undefined)
  const prices = p.type === "variable" ? variations.map(priceOf) : [priceOf(p)]
  const onSale = p.type === "variable" ? variations.some((v) => v.salePrice >= 0) : p.salePrice >= 0
  const { average, count } = ratingOf(p)
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    permalink: `${siteOf(r)}/product/${p.slug}/`,
    date_created: created.local,
    date_created_gmt: created.gmt,
    date_modified: modified.local,
    date_modified_gmt: modified.gmt,
    type: p.type,
    status: p.status,
    featured: p.featured,
    catalog_visibility: "visible",
    description: p.description,
    short_description: p.shortDescription,
    sku: p.sku,
    price: prices.length === 0 ? "" : rawDecimal(Math.min(...prices)),
    regular_price: p.type === "variable" ? "" : rawDecimal(p.regularPrice),
    sale_price: p.type === "variable" || p.salePrice < 0 ? "" : rawDecimal(p.salePrice),
    ...saleWindow(r),
    on_sale: onSale,
    purchasable: p.status === "publish" && prices.length > 0,
    total_sales: p.totalSales,
    virtual: false,
    downloadable: false,
    downloads: [],
    download_limit: -1,
    download_expiry: -1,
    external_url: "",
    button_text: "",
    tax_status: "taxable",
    tax_class: "",
    ...stockFields(p.manageStock, p.stockQuantity, p.stockStatus),
    sold_individually: false,
    weight: p.weight,
    dimensions: { length: "", width: "", height: "" },
    shipping_required: true,
    shipping_taxable: true,
    shipping_class: "",
    shipping_class_id: 0,
    reviews_allowed: true,
    average_rating: average,
    rating_count: count,
    upsell_ids: [],
    cross_sell_ids: [],
    parent_id: 0,
    purchase_note: "",
    categories: p.categories.map((id) => CATEGORIES.find((c) => c.id === id)!),
    tags: [],
    images: [],
    attributes: p.attributes.map((a, i) => ({ id: a.id, name: a.name, slug: `pa_${a.name.toLowerCase()}`, position: i, visible: true, variation: a.variation, options: a.options })),
    default_attributes: [],
    variations: p.variationIds,
    grouped_products: [],
    menu_order: p.menuOrder,
    price_html: priceHtml(prices),
    related_ids: [],
    meta_data: [],
    has_options: p.type === "variable",
    post_password: "",
    global_unique_id: "",
    brands: [],
    _links: links(r, { self: `/products/${p.id}`, collection: "/products" }),
  }
}

const variationJson = (s: StoreState, v: VariationRecord, r: RenderContext): Json => {
  const parent = s.productById.get(v.parentId)!
  const created = datePair(r, v.created)
  const modified = datePair(r, v.modified)
  const attributes = parent.attributes.filter((a) => a.variation)
  const query = attributes.map((a, i) => `attribute_pa_${a.name.toLowerCase()}=${encodeURIComponent(v.options[i]!.toLowerCase())}`).join("&")
  return {
    id: v.id,
    date_created: created.local,
    date_created_gmt: created.gmt,
    date_modified: modified.local,
    date_modified_gmt: modified.gmt,
    description: "",
    permalink: `${siteOf(r)}/product/${parent.slug}/?${query}`,
    sku: v.sku,
    global_unique_id: "",
    price: rawDecimal(priceOf(v)),
    regular_price: rawDecimal(v.regularPrice),
    sale_price: v.salePrice < 0 ? "" : rawDecimal(v.salePrice),
    ...saleWindow(r),
    on_sale: v.salePrice >= 0,
    status: "publish",
    purchasable: true,
    virtual: false,
    downloadable: false,
    downloads: [],
    download_limit: -1,
    download_expiry: -1,
    tax_status: "taxable",
    tax_class: "",
    ...stockFields(v.stockQuantity !== null, v.stockQuantity, v.stockQuantity === 0 ? "outofstock" : "instock"),
    weight: v.weight,
    dimensions: { length: "", width: "", height: "" },
    shipping_class: "",
    shipping_class_id: 0,
    image: null,
    attributes: attributes.map((a, i) => ({ id: a.id, name: a.name, slug: `pa_${a.name.toLowerCase()}`, option: v.options[i] })),
    menu_order: 0,
    meta_data: [],
    name: `${parent.name} - ${v.options.join(", ")}`,
    parent_id: v.parentId,
    _links: links(r, { self: `/products/${v.parentId}/variations/${v.id}`, collection: `/products/${v.parentId}/variations`, up: `/products/${v.parentId}` }),
  }
}

const byText =
  <T extends { id: number }>(text: (t: T) => string) =>
  (a: T, b: T): number => {
    const x = text(a)
    const y = text(b)
    return x < y ? -1 : x > y ? 1 : a.id - b.id
  }
const byNumber =
  <T extends { id: number }>(n: (t: T) => number) =>
  (a: T, b: T): number =>
    n(a) - n(b) || a.id - b.id

const productSort = (s: StoreState, common: CommonList<(typeof ORDERBY)[number]>): ListPlan<ProductRecord>["sort"] => {
  switch (common.orderby) {
    case "date":
      return "created"
    case "modified":
      return "modified"
    case "id":
      return "id"
    case "include":
      return includeOrder(common)
    case "title":
      return byText((p) => p.name)
    case "slug":
      return byText((p) => p.slug)
    case "price":
      return byNumber((p) => (p.type === "variable" ? Math.min(...p.variationIds.map((id) => priceOf(s.variationById.get(id)!))) : priceOf(p)))
    case "popularity":
      return byNumber((p) => p.totalSales)
    case "rating":
      return byNumber((p) => Number(ratingOf(p).average))
    case "menu_order":
      return (a, b) => a.menuOrder - b.menuOrder || byText<ProductRecord>((p) => p.name)(a, b)
  }
}

const listProducts: Handler = (ctx) => {
  const s = ctx.state
  const p = ctx.args()
  const common = readCommonList(p, s.site, { orderby: ORDERBY, orderbyDefault: "date", modifiedFilter: true, createdFilter: true })
  const status = p.oneOf("status", STATUS, "any")
  const type = p.oneOf("type", ["simple", "grouped", "external", "variable"])
  const sku = p.string("sku")
  const slug = p.string("slug")
  const featured = p.has("featured") ? p.bool("featured", false) : undefined
  const category = p.int("category")
  const stockStatus = p.oneOf("stock_status", ["instock", "outofstock", "onbackorder"])
  p.check()
  const ids = idFilter(common)
  const tests: ((x: ProductRecord) => boolean)[] = []
  if (status !== "any") tests.push((x) => x.status === status)
  if (ids !== undefined) tests.push((x) => ids(x.id))
  if (type !== undefined) tests.push((x) => x.type === type)
  if (sku !== undefined) tests.push((x) => x.sku === sku)
  if (slug !== undefined) tests.push((x) => x.slug === slug)
  if (featured !== undefined) tests.push((x) => x.featured === featured)
  if (category !== undefined) tests.push((x) => x.categories.includes(category))
  if (stockStatus !== undefined) tests.push((x) => x.stockStatus === stockStatus)
  const result = runList(
    {
      families: [s.productIndex],
      sort: productSort(s, common),
      desc: common.desc,
      created: common.created,
      modified: common.modified,
      local: common.local,
      predicate: tests.length === 0 ? undefined : (x) => tests.every((t) => t(x)),
      offset: common.skip,
      limit: common.perPage,
    },
    s.site,
  )
  const r = ctx.render(2)
  return listReply(ctx, common, result, (x) => productJson(s, x, r))
}

const listVariations: Handler = (ctx, { product_id }) => {
  const s = ctx.state
  const p = ctx.args()
  const common = readCommonList(p, s.site, { orderby: VARIATION_ORDERBY, orderbyDefault: "date", modifiedFilter: false, createdFilter: true })
  p.check()
  const ids = idFilter(common)
  const created = within(common.created, common.local, s.site)
  // Like WooCommerce's post_parent query, an unknown product simply has no variations.
  const rows = (s.productById.get(Number(product_id))?.variationIds ?? [])
    .map((id) => s.variationById.get(id)!)
    .filter((v) => (ids === undefined || ids(v.id)) && created(v.created))
  const compare =
    common.orderby === "include"
      ? includeOrder(common)
      : common.orderby === "modified"
        ? byNumber<VariationRecord>((v) => v.modified)
        : common.orderby === "date"
          ? byNumber<VariationRecord>((v) => v.created)
          : byNumber<VariationRecord>((v) => v.id)
  const r = ctx.render(2)
  return listReply(ctx, common, pageOf(rows, common, compare), (v) => variationJson(s, v, r))
}

const itemReply = (ctx: RequestContext, body: Json): Reply => json(200, pickFields(body, ctx.args().list("_fields")))

const findProduct = (s: StoreState, id: string): ProductRecord => {
  const product = s.productById.get(Number(id))
  if (product === undefined) throw invalidId("product")
  return product
}

export const registerProducts = (router: Router<Handler>): void => {
  const update: Handler = (ctx, { id }) => itemReply(ctx, productJson(ctx.state, ctx.state.updateProduct(Number(id), productInput(ctx.body)), ctx.render(2)))
  router
    .add("GET", "/products", listProducts)
    .add("GET", "/products/:id", (ctx, { id }) => itemReply(ctx, productJson(ctx.state, findProduct(ctx.state, id!), ctx.render(2))))
    .add("PUT", "/products/:id", update)
    .add("PATCH", "/products/:id", update)
    .add("POST", "/products/:id", update)
    .add("GET", "/products/:product_id/variations", listVariations)
    .add("GET", "/products/:product_id/variations/:id", (ctx, { product_id, id }) => {
      const v = ctx.state.variationById.get(Number(id))
      if (v === undefined || v.parentId !== Number(product_id)) throw invalidId("product_variation")
      return itemReply(ctx, variationJson(ctx.state, v, ctx.render(2)))
    })
}
