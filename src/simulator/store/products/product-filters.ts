// The list filters of products and variations. Statuses and types resolve with WooCommerce's precedence:
// exclude_status over include_status over status (a status in both include and exclude lists is excluded), and
// likewise exclude_types over include_types over type. Price filters compare the product's price range as
// WooCommerce's lookup table holds it: min_price against its lowest, max_price against its highest price.
import { parseCents } from "../money.ts"
import type { ParamReader } from "../rest/params.ts"
import type { PostStatus, ProductRecord, ProductType, VariationRecord } from "../model.ts"
import { PRODUCT_TYPES } from "../model.ts"
import { currentPrice, onSaleNow, productPrices } from "./product-json.ts"
import type { StoreState } from "../state.ts"

const STATUS_PARAM = ["any", "future", "trash", "draft", "pending", "private", "publish"] as const
const EXCLUDE_STATUS = ["future", "trash", "draft", "pending", "private", "publish"] as const
/** WordPress's "any": every status but trash (and the internal auto-draft). */
const ANY: ReadonlyArray<PostStatus> = ["publish", "future", "draft", "pending", "private"]
const STOCK = ["instock", "outofstock", "onbackorder"] as const

type Test<T> = (t: T) => boolean

const expand = (statuses: ReadonlyArray<string>): Set<string> => new Set(statuses.flatMap((st): string[] => (st === "any" ? [...ANY] : [st])))

/** The statuses a list shows, after status, include_status and exclude_status. */
const readStatuses = (p: ParamReader): Set<string> => {
  const status = p.oneOf("status", STATUS_PARAM, "any")
  const include = p.manyOf("include_status", STATUS_PARAM)
  const exclude = p.manyOf("exclude_status", EXCLUDE_STATUS)
  const base = expand(include !== undefined && include.length > 0 ? include : [status])
  for (const st of exclude ?? []) base.delete(st)
  return base
}

/** The product types a list shows, after type, include_types and exclude_types; undefined means all. */
const readTypes = (p: ParamReader): Set<ProductType> | undefined => {
  const type = p.oneOf("type", PRODUCT_TYPES)
  const include = p.manyOf("include_types", PRODUCT_TYPES)
  const exclude = p.manyOf("exclude_types", PRODUCT_TYPES)
  if (type === undefined && (include === undefined || include.length === 0) && (exclude === undefined || exclude.length === 0)) return undefined
  const base = new Set<ProductType>(include !== undefined && include.length > 0 ? include : type !== undefined ? [type] : PRODUCT_TYPES)
  for (const t of exclude ?? []) base.delete(t)
  return base
}

const flag = (p: ParamReader, name: string): boolean | undefined => (p.has(name) ? p.bool(name, false) : undefined)

const money = (p: ParamReader, name: string): number | undefined => {
  const raw = p.string(name)
  return raw === undefined || raw === "" ? undefined : parseCents(raw)
}

/** Search tokens must all be found, each in one of the fields (case-insensitive). */
const searchTest = <T>(search: string | undefined, fields: (t: T) => string[]): Test<T> | undefined => {
  const tokens = (search ?? "").toLowerCase().split(/\s+/).filter((x) => x !== "")
  if (tokens.length === 0) return undefined
  return (t) => {
    const texts = fields(t).map((f) => f.toLowerCase())
    return tokens.every((token) => texts.some((f) => f.includes(token)))
  }
}

interface Priced {
  sku: string
  extra?: { taxClass?: string; virtual?: boolean; downloadable?: boolean }
}

/** Filters products and variations share: sku, tax class, sale, price range, stock status, virtual, downloadable. */
const sharedTests = <T extends Priced>(p: ParamReader, prices: (t: T) => number[], onSale: (t: T) => boolean, stock: (t: T) => string): Test<T>[] => {
  const tests: Test<T>[] = []
  const skus = p.list("sku")
  const taxClass = p.string("tax_class")
  const sale = flag(p, "on_sale")
  const min = money(p, "min_price")
  const max = money(p, "max_price")
  const stockStatus = p.oneOf("stock_status", STOCK)
  const virtual = flag(p, "virtual")
  const downloadable = flag(p, "downloadable")
  if (skus !== undefined && skus.length > 0) tests.push((t) => skus.includes(t.sku))
  if (taxClass !== undefined) tests.push((t) => (t.extra?.taxClass ?? "") === (taxClass === "standard" ? "" : taxClass))
  if (sale !== undefined) tests.push((t) => onSale(t) === sale)
  if (min !== undefined || max !== undefined) {
    tests.push((t) => {
      const ps = prices(t)
      return ps.length > 0 && (min === undefined || Math.min(...ps) >= min) && (max === undefined || Math.max(...ps) <= max)
    })
  }
  if (stockStatus !== undefined) tests.push((t) => stock(t) === stockStatus)
  if (virtual !== undefined) tests.push((t) => (t.extra?.virtual ?? false) === virtual)
  if (downloadable !== undefined) tests.push((t) => (t.extra?.downloadable ?? false) === downloadable)
  return tests
}

const descendants = (s: StoreState, ids: number[]): Set<number> => {
  const out = new Set(ids)
  let grew = true
  while (grew) {
    grew = false
    for (const t of s.taxonomy.terms.values()) {
      if (t.group === "product_cat" && out.has(t.parent) && !out.has(t.id)) {
        out.add(t.id)
        grew = true
      }
    }
  }
  return out
}

/** Every product filter of seed part 1 §4.2 but the common ones; call p.check() after. */
export const productTests = (p: ParamReader, s: StoreState): Test<ProductRecord>[] => {
  const statuses = readStatuses(p)
  const types = readTypes(p)
  const now = s.now()
  const tests: Test<ProductRecord>[] = [(x) => statuses.has(x.status)]
  if (types !== undefined) tests.push((x) => types.has(x.type))
  const slug = p.string("slug")
  const featured = flag(p, "featured")
  const category = p.ids("category")
  const tag = p.ids("tag")
  const shippingClass = p.ids("shipping_class")
  const attribute = p.string("attribute")
  const attributeTerm = p.ids("attribute_term")
  const parent = p.ids("parent")
  const parentExclude = p.ids("parent_exclude")
  const search = p.string("search")
  const searchFields = p.manyOf("search_fields", ["name", "sku", "global_unique_id", "description", "short_description"])
  if (slug !== undefined) tests.push((x) => x.slug === slug)
  if (featured !== undefined) tests.push((x) => x.featured === featured)
  if (category !== undefined && category.length > 0) {
    // A category query includes the subcategories, as WordPress's tax_query does by default.
    const within = descendants(s, category)
    tests.push((x) => x.categories.some((id) => within.has(id)))
  }
  if (tag !== undefined && tag.length > 0) tests.push((x) => (x.extra?.tags ?? []).some((id) => tag.includes(id)))
  if (shippingClass !== undefined && shippingClass.length > 0) tests.push((x) => shippingClass.includes(x.extra?.shippingClass ?? 0))
  // attribute is a taxonomy name (pa_color); without attribute_term WooCommerce ignores it.
  const global = attribute === undefined ? undefined : [...s.taxonomy.attributes.values()].find((a) => `pa_${a.slug}` === attribute)
  if (global !== undefined && attributeTerm !== undefined && attributeTerm.length > 0) {
    const names = attributeTerm.map((id) => s.taxonomy.term(`attribute:${global.id}`, id)?.name).filter((n): n is string => n !== undefined)
    tests.push((x) => x.attributes.some((a) => a.id === global.id && a.options.some((o) => names.includes(o))))
  }
  if (parent !== undefined) tests.push((x) => parent.includes(x.extra?.parentId ?? 0))
  if (parentExclude !== undefined) tests.push((x) => !parentExclude.includes(x.extra?.parentId ?? 0))
  const fields = searchFields !== undefined && searchFields.length > 0 ? searchFields : ["name", "short_description", "description"]
  const byField: Record<string, (x: ProductRecord) => string> = {
    name: (x) => x.name,
    sku: (x) => x.sku,
    global_unique_id: (x) => x.extra?.globalUniqueId ?? "",
    description: (x) => x.description,
    short_description: (x) => x.shortDescription,
  }
  const matches = searchTest<ProductRecord>(search, (x) => fields.map((f) => byField[f]!(x)))
  if (matches !== undefined) tests.push(matches)
  const onSale = (x: ProductRecord) =>
    x.type === "variable" ? x.variationIds.some((id) => { const v = s.variationById.get(id); return v !== undefined && onSaleNow(v, now) }) : onSaleNow(x, now)
  tests.push(...sharedTests(p, (x) => productPrices(s, x), onSale, (x) => x.stockStatus))
  return tests
}

const variationStatus = (v: VariationRecord): string => v.extra?.status ?? "publish"

const variationStock = (v: VariationRecord): string => v.extra?.stockStatus ?? (v.stockQuantity === 0 ? "outofstock" : "instock")

/** The variation filters of seed part 1 §4.3 but the common ones; call p.check() after. */
export const variationTests = (p: ParamReader, s: StoreState): Test<VariationRecord>[] => {
  const statuses = readStatuses(p)
  const now = s.now()
  const search = p.string("search")
  const tests: Test<VariationRecord>[] = [(v) => statuses.has(variationStatus(v))]
  const matches = searchTest<VariationRecord>(search, (v) => [v.sku, v.extra?.description ?? "", ...v.options])
  if (matches !== undefined) tests.push(matches)
  tests.push(
    ...sharedTests<VariationRecord>(
      p,
      (v) => {
        const price = currentPrice(v, now)
        return price === undefined ? [] : [price]
      },
      (v) => onSaleNow(v, now),
      variationStock,
    ),
  )
  return tests
}
