// /products/shipping_classes (seed part 2 §4.4): the term routes; deleting a class takes it off its products.
import type { Router } from "../../http/router.ts"
import type { Handler } from "../app.ts"
import { type Json, type RenderContext, links } from "../rest/render.ts"
import type { StoreState } from "../state.ts"
import type { TermRecord } from "./taxonomy.ts"
import { registerTerms } from "./terms.ts"

const shippingClassJson = (s: StoreState, t: TermRecord, r: RenderContext): Json => ({
  id: t.id,
  name: t.name,
  slug: t.slug,
  description: t.description,
  count: s.taxonomy.count(t),
  _links: links(r, { self: `/products/shipping_classes/${t.id}`, collection: "/products/shipping_classes" }),
})

export const registerShippingClasses = (router: Router<Handler>): void =>
  registerTerms(router, { path: "/products/shipping_classes", group: () => "product_shipping_class", json: shippingClassJson, plural: "Shipping classes" })
