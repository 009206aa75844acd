// Variation writes: a variation's options line up with its parent's variation attributes (matched by global id or
// by name); it manages its own stock, or follows the parent's ("parent"). Each write also saves the parent, as
// WooCommerce's price sync does, so the parent's date_modified moves too.
import { invalidId, wcError } from "../rest/errors.ts"
import type { ProductRecord, VariationRecord } from "../model.ts"
import type { VariationInput } from "./product-input.ts"
import { allOrNothing, applyShared, checkSku, stockStatusFor, touchProduct } from "./product-writes.ts"
import type { StoreState } from "../state.ts"
import { sanitizeTitle } from "../text.ts"

const applyVariation = (s: StoreState, parent: ProductRecord, v: VariationRecord, input: VariationInput): void => {
  checkSku(s, input.sku, v.id)
  const extra = (v.extra ??= {})
  applyShared(s, v, extra, input)
  if (input.description !== undefined) extra.description = input.description
  if (input.status !== undefined) extra.status = input.status
  if (input.menu_order !== undefined) extra.menuOrder = input.menu_order
  if (input.manage_stock !== undefined) extra.manageStock = input.manage_stock
  // A variation manages its own stock when it says so (a generated one: when it has a quantity).
  const manages = (extra.manageStock ?? v.stockQuantity !== null) === true
  if (!manages) {
    v.stockQuantity = null
    if (input.stock_status !== undefined) extra.stockStatus = input.stock_status
  } else {
    if (input.stock_quantity !== undefined) v.stockQuantity = input.stock_quantity ?? 0
    v.stockQuantity ??= 0
    extra.stockStatus = stockStatusFor(v.stockQuantity, extra.backorders)
  }
  if (input.image !== undefined) extra.image = input.image === null ? 0 : s.media.resolve(input.image).id
  if (input.gallery_image_ids !== undefined) extra.galleryImageIds = input.gallery_image_ids
  if (input.attributes !== undefined) {
    const attrs = parent.attributes.filter((a) => a.variation)
    v.options = attrs.map((a, k) => {
      const given = input.attributes!.find((x) => (x.id !== undefined && x.id > 0 ? x.id === a.id : (x.name ?? "").toLowerCase() === a.name.toLowerCase()))
      if (given === undefined) return v.options[k] ?? ""
      const option = given.option ?? ""
      return a.options.find((o) => o.toLowerCase() === option.toLowerCase() || sanitizeTitle(o) === option.toLowerCase()) ?? option
    })
  }
}

export const variationOf = (s: StoreState, productId: number, id: number, status = 404): VariationRecord => {
  const v = s.variationById.get(id)
  if (v === undefined || v.parentId !== productId) throw invalidId("product_variation", status)
  return v
}

const parentOf = (s: StoreState, productId: number): ProductRecord => {
  const parent = s.productById.get(productId)
  if (parent === undefined) throw wcError(404, "woocommerce_rest_product_invalid_id", "Invalid product ID.")
  return parent
}

const saveParent = (s: StoreState, parent: ProductRecord): void => {
  touchProduct(s, parent)
  s.hooks.emit("woocommerce_update_product", parent.id, "product")
}

export const createVariation = (s: StoreState, productId: number, input: VariationInput): VariationRecord => {
  const parent = parentOf(s, productId)
  if (parent.type !== "variable") throw wcError(400, "woocommerce_rest_invalid_product_type", "Variations can only be added to variable products.")
  checkSku(s, input.sku, 0)
  const now = s.now()
  const v: VariationRecord = {
    id: s.ids.take("post"),
    parentId: parent.id,
    sku: "",
    regularPrice: 0,
    salePrice: -1,
    created: now,
    modified: now,
    options: parent.attributes.filter((a) => a.variation).map(() => ""),
    stockQuantity: null,
    weight: "",
    extra: { noPrice: true },
  }
  applyVariation(s, parent, v, input)
  s.variationById.set(v.id, v)
  parent.variationIds.push(v.id)
  s.hooks.emit("woocommerce_new_product_variation", v.id, "product")
  saveParent(s, parent)
  return v
}

export const updateVariation = (s: StoreState, productId: number, id: number, input: VariationInput): VariationRecord => {
  const parent = parentOf(s, productId)
  const v = variationOf(s, productId, id, 400)
  checkSku(s, input.sku, v.id)
  allOrNothing(v, () => applyVariation(s, parent, v, input))
  v.modified = s.now()
  s.hooks.emit("woocommerce_update_product_variation", v.id, "product")
  saveParent(s, parent)
  return v
}

export const deleteVariation = (s: StoreState, productId: number, id: number): VariationRecord => {
  const parent = parentOf(s, productId)
  const v = variationOf(s, productId, id)
  s.variationById.delete(id)
  parent.variationIds = parent.variationIds.filter((x) => x !== id)
  saveParent(s, parent)
  return v
}
