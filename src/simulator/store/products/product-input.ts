// Product and variation write bodies checked into typed inputs. Read-only fields (id, price, permalink, dates
// created/modified, total_sales, ratings, variations, ...) are simply not read, so a client sending them back
// changes nothing, as WordPress drops read-only schema fields from the arguments.
import { type Body, bool, int, intList, invalid, meta, money, object, objects, oneOf, str, strList } from "../rest/body-fields.ts"
import { type ImageInput, imageInput } from "./media.ts"
import { type Dimensions, PRODUCT_TYPES, type ProductRecord, type ProductType } from "../model.ts"

type Money = string | number

const WRITE_STATUSES = ["draft", "pending", "private", "publish"] as const
const STOCK_STATUSES = ["instock", "outofstock", "onbackorder"] as const

/** The fields products and variations share. */
export interface SharedInput {
  sku?: string
  global_unique_id?: string
  regular_price?: Money
  sale_price?: Money
  /** Raw date strings (site-local or GMT); "" clears. */
  date_on_sale_from?: string
  date_on_sale_from_gmt?: string
  date_on_sale_to?: string
  date_on_sale_to_gmt?: string
  virtual?: boolean
  downloadable?: boolean
  downloads?: { id?: string; name?: string; file?: string }[]
  download_limit?: number
  download_expiry?: number
  tax_status?: "taxable" | "shipping" | "none"
  tax_class?: string
  stock_quantity?: number | null
  stock_status?: ProductRecord["stockStatus"]
  backorders?: "no" | "notify" | "yes"
  low_stock_amount?: number | null
  weight?: string
  dimensions?: Partial<Dimensions>
  /** Shipping class slug; "" removes it. */
  shipping_class?: string
  menu_order?: number
  meta_data?: { key: string; value: unknown }[]
}

export interface ProductInput extends SharedInput {
  name?: string
  slug?: string
  type?: ProductType
  status?: (typeof WRITE_STATUSES)[number]
  featured?: boolean
  catalog_visibility?: "visible" | "catalog" | "search" | "hidden"
  description?: string
  short_description?: string
  manage_stock?: boolean
  external_url?: string
  button_text?: string
  sold_individually?: boolean
  reviews_allowed?: boolean
  upsell_ids?: number[]
  cross_sell_ids?: number[]
  parent_id?: number
  purchase_note?: string
  categories?: number[]
  tags?: number[]
  brands?: number[]
  images?: ImageInput[]
  attributes?: { id?: number; name?: string; position?: number; visible?: boolean; variation?: boolean; options?: string[] }[]
  default_attributes?: { id?: number; name?: string; option?: string }[]
  grouped_products?: number[]
  post_password?: string
}

export interface VariationInput extends SharedInput {
  description?: string
  status?: (typeof WRITE_STATUSES)[number]
  manage_stock?: boolean | "parent"
  /** null removes the image. */
  image?: ImageInput | null
  gallery_image_ids?: number[]
  attributes?: { id?: number; name?: string; option?: string }[]
}

const termIds = (b: Body, k: string): number[] | undefined =>
  objects(b, k)?.map((t, i) => {
    const id = int(t, "id", `${k}[${i}][id]`)
    if (id === undefined) throw invalid(`${k}[${i}][id]`, "integer")
    return id
  })

const dimensions = (b: Body): Partial<Dimensions> | undefined => {
  const d = object(b, "dimensions")
  if (d === undefined) return undefined
  const out: Partial<Dimensions> = {}
  for (const k of ["length", "width", "height"] as const) {
    const v = str(d, k, `dimensions[${k}]`)
    if (v !== undefined) out[k] = v
  }
  return out
}

const sharedInput = (b: Body): SharedInput => ({
  sku: str(b, "sku"),
  global_unique_id: str(b, "global_unique_id"),
  regular_price: money(b, "regular_price"),
  sale_price: money(b, "sale_price"),
  date_on_sale_from: str(b, "date_on_sale_from"),
  date_on_sale_from_gmt: str(b, "date_on_sale_from_gmt"),
  date_on_sale_to: str(b, "date_on_sale_to"),
  date_on_sale_to_gmt: str(b, "date_on_sale_to_gmt"),
  virtual: bool(b, "virtual"),
  downloadable: bool(b, "downloadable"),
  downloads: objects(b, "downloads")?.map((d, i) => ({ id: str(d, "id", `downloads[${i}][id]`), name: str(d, "name", `downloads[${i}][name]`), file: str(d, "file", `downloads[${i}][file]`) })),
  download_limit: int(b, "download_limit"),
  download_expiry: int(b, "download_expiry"),
  tax_status: oneOf(b, "tax_status", ["taxable", "shipping", "none"]),
  tax_class: str(b, "tax_class"),
  stock_quantity: b["stock_quantity"] === null ? null : int(b, "stock_quantity"),
  stock_status: oneOf(b, "stock_status", STOCK_STATUSES),
  backorders: oneOf(b, "backorders", ["no", "notify", "yes"]),
  low_stock_amount: b["low_stock_amount"] === null ? null : int(b, "low_stock_amount"),
  weight: str(b, "weight"),
  dimensions: dimensions(b),
  shipping_class: str(b, "shipping_class"),
  menu_order: int(b, "menu_order"),
  meta_data: meta(b),
})

export const productInput = (b: Body): ProductInput => ({
  ...sharedInput(b),
  name: str(b, "name"),
  slug: str(b, "slug"),
  type: oneOf(b, "type", PRODUCT_TYPES),
  status: oneOf(b, "status", WRITE_STATUSES),
  featured: bool(b, "featured"),
  catalog_visibility: oneOf(b, "catalog_visibility", ["visible", "catalog", "search", "hidden"]),
  description: str(b, "description"),
  short_description: str(b, "short_description"),
  manage_stock: bool(b, "manage_stock"),
  external_url: str(b, "external_url"),
  button_text: str(b, "button_text"),
  sold_individually: bool(b, "sold_individually"),
  reviews_allowed: bool(b, "reviews_allowed"),
  upsell_ids: intList(b, "upsell_ids"),
  cross_sell_ids: intList(b, "cross_sell_ids"),
  parent_id: int(b, "parent_id"),
  purchase_note: str(b, "purchase_note"),
  categories: termIds(b, "categories"),
  tags: termIds(b, "tags"),
  brands: termIds(b, "brands"),
  images: objects(b, "images")?.map((img, i) => imageInput(img, `images[${i}]`)),
  attributes: objects(b, "attributes")?.map((a, i) => ({
    id: int(a, "id", `attributes[${i}][id]`),
    name: str(a, "name", `attributes[${i}][name]`),
    position: int(a, "position", `attributes[${i}][position]`),
    visible: bool(a, "visible", `attributes[${i}][visible]`),
    variation: bool(a, "variation", `attributes[${i}][variation]`),
    options: strList(a, "options"),
  })),
  default_attributes: objects(b, "default_attributes")?.map((a, i) => ({
    id: int(a, "id", `default_attributes[${i}][id]`),
    name: str(a, "name", `default_attributes[${i}][name]`),
    option: str(a, "option", `default_attributes[${i}][option]`),
  })),
  grouped_products: intList(b, "grouped_products"),
  post_password: str(b, "post_password"),
})

const optionalImage = (b: Body): ImageInput | undefined => {
  const image = object(b, "image")
  return image === undefined ? undefined : imageInput(image, "image")
}

const manageStock = (b: Body): boolean | "parent" | undefined => (b["manage_stock"] === "parent" ? "parent" : bool(b, "manage_stock"))

export const variationInput = (b: Body): VariationInput => ({
  ...sharedInput(b),
  description: str(b, "description"),
  status: oneOf(b, "status", WRITE_STATUSES),
  manage_stock: manageStock(b),
  image: b["image"] === null ? null : optionalImage(b),
  gallery_image_ids: intList(b, "gallery_image_ids"),
  attributes: objects(b, "attributes")?.map((a, i) => ({
    id: int(a, "id", `attributes[${i}][id]`),
    name: str(a, "name", `attributes[${i}][name]`),
    option: str(a, "option", `attributes[${i}][option]`),
  })),
})
