// /products routes: list (every parameter of seed part 1 §4.2), read, create, update, trash or delete, duplicate,
// batch.
import { type Reply, json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { batchHandler } from "../rest/batch.ts"
import { invalidId } from "../rest/errors.ts"
import { type CommonList, idFilter, includeOrder, readCommonList } from "../rest/list-params.ts"
import { listReply } from "../rest/list-reply.ts"
import type { ProductRecord } from "../model.ts"
import { productTests } from "./product-filters.ts"
import { productInput } from "./product-input.ts"
import { productJson, productPrices, ratingOf } from "./product-json.ts"
import { createProduct, deleteProduct, duplicateProduct, trashProduct, updateProduct } from "./product-writes.ts"
import { type ListPlan, runList } from "../rest/query.ts"
import { type Json, pickFields } from "../rest/render.ts"
import type { StoreState } from "../state.ts"

const ORDERBY = ["date", "id", "include", "title", "slug", "modified", "price", "popularity", "rating", "menu_order"] as const

// Comparators on the key alone: rows equal on it tie, and the list answer gives ties in no particular order.
export const byText =
  <T>(text: (t: T) => string) =>
  (a: T, b: T): number => {
    const x = text(a)
    const y = text(b)
    return x < y ? -1 : x > y ? 1 : 0
  }
export const byNumber =
  <T>(n: (t: T) => number) =>
  (a: T, b: T): number =>
    n(a) - n(b)

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
      return byNumber((p) => Math.min(...productPrices(s, p), Number.MAX_SAFE_INTEGER))
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
  const tests = productTests(p, s)
  const imageSize = p.string("image_size") ?? "full"
  p.check()
  const ids = idFilter(common)
  if (ids !== undefined) tests.push((x) => ids(x.id))
  const result = runList(
    {
      families: [s.productIndex],
      sort: productSort(s, common),
      desc: common.desc,
      created: common.created,
      modified: common.modified,
      local: common.local,
      predicate: (x) => tests.every((t) => t(x)),
      offset: common.skip,
      limit: common.perPage,
      rng: s.listRng(),
    },
    s.site,
  )
  const r = ctx.render(2)
  return listReply(ctx, common, result, (x) => productJson(s, x, r, imageSize))
}

export const itemReply = (ctx: RequestContext, body: Json, status = 200, location?: string): Reply =>
  json(status, pickFields(body, ctx.args().list("_fields")), location === undefined ? undefined : { Location: location })

const findProduct = (s: StoreState, id: string): ProductRecord => {
  const product = s.productById.get(Number(id))
  if (product === undefined) throw invalidId("product")
  return product
}

const render = (ctx: RequestContext, p: ProductRecord): Json => productJson(ctx.state, p, ctx.render(2), ctx.args().string("image_size") ?? "full")

export const registerProducts = (router: Router<Handler>): void => {
  const update: Handler = (ctx, { id }) => itemReply(ctx, render(ctx, updateProduct(ctx.state, Number(id), productInput(ctx.body))))
  router
    .add("GET", "/products", listProducts)
    .add("POST", "/products", (ctx) => {
      const p = createProduct(ctx.state, productInput(ctx.body))
      return itemReply(ctx, render(ctx, p), 201, `${ctx.apiUrl}/products/${p.id}`)
    })
    .add(
      "POST",
      "/products/batch",
      batchHandler({
        create: (ctx, item) => render(ctx, createProduct(ctx.state, productInput(item))),
        update: (ctx, item) => render(ctx, updateProduct(ctx.state, Number(item["id"] ?? 0), productInput(item))),
        delete: (ctx, id) => {
          const body = render(ctx, findProduct(ctx.state, String(id)))
          deleteProduct(ctx.state, id)
          return body
        },
      }),
    )
    .add("GET", "/products/:id", (ctx, { id }) => itemReply(ctx, render(ctx, findProduct(ctx.state, id!))))
    .add("PUT", "/products/:id", update)
    .add("PATCH", "/products/:id", update)
    .add("POST", "/products/:id", update)
    .add("DELETE", "/products/:id", (ctx, { id }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      if (!force) return itemReply(ctx, render(ctx, trashProduct(ctx.state, Number(id))))
      // The answer shows the product as it was just before it vanished.
      const body = render(ctx, findProduct(ctx.state, id!))
      deleteProduct(ctx.state, Number(id))
      return itemReply(ctx, body)
    })
    .add("POST", "/products/:id/duplicate", (ctx, { id }) => {
      const copy = duplicateProduct(ctx.state, Number(id))
      return itemReply(ctx, render(ctx, copy), 201, `${ctx.apiUrl}/products/${copy.id}`)
    })
}
