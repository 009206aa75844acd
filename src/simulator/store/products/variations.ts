// /products/<product_id>/variations routes: list (seed part 1 §4.3 parameters), read, create, update, delete
// (force required: variations are not trashed) and batch.
import type { Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { batchHandler } from "../rest/batch.ts"
import { trashNotSupported } from "../rest/errors.ts"
import { idFilter, includeOrder, readCommonList } from "../rest/list-params.ts"
import { listReply, pageOf } from "../rest/list-reply.ts"
import type { VariationRecord } from "../model.ts"
import { variationTests } from "./product-filters.ts"
import { variationInput } from "./product-input.ts"
import { variationJson } from "./product-json.ts"
import { createVariation, deleteVariation, updateVariation, variationOf } from "./variation-writes.ts"
import { byNumber, itemReply } from "./products.ts"
import { within } from "../rest/query.ts"
import type { Json } from "../rest/render.ts"
import { sanitizeTitle } from "../text.ts"

const ORDERBY = ["date", "id", "include", "title", "slug", "modified"] as const

const listVariations: Handler = (ctx, { product_id }) => {
  const s = ctx.state
  const p = ctx.args()
  // Seed part 1 §4.3 gives variations no modified filter.
  const common = readCommonList(p, s.site, { orderby: ORDERBY, orderbyDefault: "date", modifiedFilter: false, createdFilter: true })
  const tests = variationTests(p, s)
  const slug = p.string("slug")
  const parents = p.ids("parent")
  const parentExclude = p.ids("parent_exclude")
  const imageSize = p.string("image_size") ?? "full"
  p.check()
  const ids = idFilter(common)
  const created = within(common.created, common.local, s.site)
  const parent = s.productById.get(Number(product_id))
  const slugOf = (v: VariationRecord) => sanitizeTitle(`${parent?.name ?? ""} ${v.options.join(" ")}`)
  // Like WooCommerce's post_parent query, an unknown product simply has no variations.
  const rows = (parent?.variationIds ?? [])
    .map((id) => s.variationById.get(id)!)
    .filter(
      (v) =>
        (ids === undefined || ids(v.id)) &&
        created(v.created) &&
        (slug === undefined || slugOf(v) === slug) &&
        (parents === undefined || parents.includes(v.parentId)) &&
        (parentExclude === undefined || !parentExclude.includes(v.parentId)) &&
        tests.every((t) => t(v)),
    )
  const compare =
    common.orderby === "include"
      ? includeOrder(common)
      : common.orderby === "modified"
        ? byNumber<VariationRecord>((v) => v.modified)
        : common.orderby === "date"
          ? byNumber<VariationRecord>((v) => v.created)
          : byNumber<VariationRecord>((v) => v.id)
  const r = ctx.render(2)
  return listReply(ctx, common, pageOf(rows, common, compare, s.listRng()), (v) => variationJson(s, v, r, imageSize))
}

const render = (ctx: RequestContext, v: VariationRecord): Json => variationJson(ctx.state, v, ctx.render(2), ctx.args().string("image_size") ?? "full")

export const registerVariations = (router: Router<Handler>): void => {
  const update: Handler = (ctx, { product_id, id }) => itemReply(ctx, render(ctx, updateVariation(ctx.state, Number(product_id), Number(id), variationInput(ctx.body))))
  router
    .add("GET", "/products/:product_id/variations", listVariations)
    .add("POST", "/products/:product_id/variations", (ctx, { product_id }) => {
      const v = createVariation(ctx.state, Number(product_id), variationInput(ctx.body))
      return itemReply(ctx, render(ctx, v), 201, `${ctx.apiUrl}/products/${product_id}/variations/${v.id}`)
    })
    .add("POST", "/products/:product_id/variations/batch", (ctx, params) =>
      batchHandler({
        create: (c, item) => render(c, createVariation(c.state, Number(params["product_id"]), variationInput(item))),
        update: (c, item) => render(c, updateVariation(c.state, Number(params["product_id"]), Number(item["id"] ?? 0), variationInput(item))),
        delete: (c, id) => {
          const body = render(c, variationOf(c.state, Number(params["product_id"]), id))
          deleteVariation(c.state, Number(params["product_id"]), id)
          return body
        },
      })(ctx, params),
    )
    .add("GET", "/products/:product_id/variations/:id", (ctx, { product_id, id }) => itemReply(ctx, render(ctx, variationOf(ctx.state, Number(product_id), Number(id)))))
    .add("PUT", "/products/:product_id/variations/:id", update)
    .add("PATCH", "/products/:product_id/variations/:id", update)
    .add("POST", "/products/:product_id/variations/:id", update)
    .add("DELETE", "/products/:product_id/variations/:id", (ctx, { product_id, id }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      const v = variationOf(ctx.state, Number(product_id), Number(id))
      if (!force) throw trashNotSupported("Variations")
      const body = render(ctx, v)
      deleteVariation(ctx.state, Number(product_id), v.id)
      return itemReply(ctx, body)
    })
}
