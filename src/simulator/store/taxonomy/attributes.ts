// /products/attributes and /products/attributes/<attribute_id>/terms (seed part 2 §4.1-4.2). Deleting an
// attribute deletes its terms; the batch answers {create, update, delete} with the attributes themselves.
import { json } from "../../http/reply.ts"
import type { Params, Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { batchHandler } from "../rest/batch.ts"
import { type Body, bool, oneOf, str } from "../rest/body-fields.ts"
import { trashNotSupported, wcError } from "../rest/errors.ts"
import { type Json, type RenderContext, links } from "../rest/render.ts"
import type { StoreState } from "../state.ts"
import type { AttributeInput, AttributeRecord, TermGroup, TermRecord } from "./taxonomy.ts"
import { registerTerms } from "./terms.ts"

const attributeJson = (a: AttributeRecord, r: RenderContext): Json => ({
  id: a.id,
  name: a.name,
  slug: `pa_${a.slug}`,
  type: a.type,
  order_by: a.orderBy,
  has_archives: a.hasArchives,
  _links: links(r, { self: `/products/attributes/${a.id}`, collection: "/products/attributes" }),
})

const termJson = (s: StoreState, t: TermRecord, r: RenderContext, params: Params): Json => ({
  id: t.id,
  name: t.name,
  slug: t.slug,
  description: t.description,
  menu_order: t.menuOrder,
  count: s.taxonomy.count(t),
  _links: links(r, { self: `/products/attributes/${params["attribute_id"]}/terms/${t.id}`, collection: `/products/attributes/${params["attribute_id"]}/terms` }),
})

/** Only "select" is registered, as in a WooCommerce without extensions. */
const attributeInput = (b: Body): AttributeInput => ({
  name: str(b, "name"),
  slug: str(b, "slug"),
  type: oneOf(b, "type", ["select"]),
  order_by: oneOf(b, "order_by", ["menu_order", "name", "name_num", "id"]),
  has_archives: bool(b, "has_archives"),
})

const findAttribute = (s: StoreState, id: number): AttributeRecord => {
  const a = s.taxonomy.attributes.get(id)
  if (a === undefined) throw wcError(404, "woocommerce_rest_attribute_invalid", "Resource does not exist.")
  return a
}

const attributeGroup = (s: StoreState, params: Params): TermGroup => {
  const id = Number(params["attribute_id"])
  if (!s.taxonomy.attributes.has(id)) throw wcError(404, "woocommerce_rest_taxonomy_invalid", "Taxonomy does not exist.")
  return `attribute:${id}`
}

const remove = (ctx: RequestContext, id: number): Json => {
  const a = findAttribute(ctx.state, id)
  const body = attributeJson(a, ctx.render(2))
  ctx.state.taxonomy.deleteAttribute(a)
  return body
}

export const registerAttributes = (router: Router<Handler>): void => {
  const update: Handler = (ctx, { id }) => json(200, attributeJson(ctx.state.taxonomy.updateAttribute(findAttribute(ctx.state, Number(id)), attributeInput(ctx.body)), ctx.render(2)))
  router
    .add("GET", "/products/attributes", (ctx) => {
      const r = ctx.render(2)
      const all = [...ctx.state.taxonomy.attributes.values()].sort((a, b) => a.slug.localeCompare(b.slug))
      return json(200, all.map((a) => attributeJson(a, r)))
    })
    .add("POST", "/products/attributes", (ctx) => {
      const a = ctx.state.taxonomy.createAttribute(attributeInput(ctx.body))
      return json(201, attributeJson(a, ctx.render(2)), { Location: `${ctx.apiUrl}/products/attributes/${a.id}` })
    })
    .add(
      "POST",
      "/products/attributes/batch",
      batchHandler({
        create: (ctx, b) => attributeJson(ctx.state.taxonomy.createAttribute(attributeInput(b)), ctx.render(2)),
        update: (ctx, b) => attributeJson(ctx.state.taxonomy.updateAttribute(findAttribute(ctx.state, Number(b["id"] ?? 0)), attributeInput(b)), ctx.render(2)),
        delete: remove,
      }),
    )
    .add("GET", "/products/attributes/:id", (ctx, { id }) => json(200, attributeJson(findAttribute(ctx.state, Number(id)), ctx.render(2))))
    .add("PUT", "/products/attributes/:id", update)
    .add("PATCH", "/products/attributes/:id", update)
    .add("POST", "/products/attributes/:id", update)
    .add("DELETE", "/products/attributes/:id", (ctx, { id }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      findAttribute(ctx.state, Number(id))
      if (!force) throw trashNotSupported("Attributes")
      return json(200, remove(ctx, Number(id)))
    })
  registerTerms(router, { path: "/products/attributes/:attribute_id/terms", group: attributeGroup, json: termJson, plural: "Attribute terms" })
}
