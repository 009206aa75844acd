// /products/categories (seed part 2 §4.3): the term routes with the category's own fields (parent, display,
// image). Deleting a category moves its children up and products left without one into the default category.
import type { Router } from "../../http/router.ts"
import type { Handler } from "../app.ts"
import { imageJson } from "../products/media.ts"
import { type Json, type RenderContext, links } from "../rest/render.ts"
import type { StoreState } from "../state.ts"
import type { TermRecord } from "./taxonomy.ts"
import { registerTerms } from "./terms.ts"

const categoryJson = (s: StoreState, t: TermRecord, r: RenderContext): Json => {
  const image = t.imageId > 0 ? s.media.byId.get(t.imageId) : undefined
  const rels: Record<string, string> = { self: `/products/categories/${t.id}`, collection: "/products/categories" }
  if (t.parent > 0) rels["up"] = `/products/categories/${t.parent}`
  return {
    id: t.id,
    name: t.name,
    slug: t.slug,
    parent: t.parent,
    description: t.description,
    display: t.display,
    image: image === undefined ? null : imageJson(r, image, "full"),
    menu_order: t.menuOrder,
    count: s.taxonomy.count(t),
    _links: links(r, rels),
  }
}

export const registerCategories = (router: Router<Handler>): void =>
  registerTerms(router, { path: "/products/categories", group: () => "product_cat", json: categoryJson, plural: "Categories" })
