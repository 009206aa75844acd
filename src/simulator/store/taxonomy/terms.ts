// The routes every term collection shares (attribute terms, categories, shipping classes): list with WordPress's
// term parameters, read, create, update, delete (force required: terms are not trashed) and batch.
import { json } from "../../http/reply.ts"
import type { Params, Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { batchHandler } from "../rest/batch.ts"
import { type Body, int, object, oneOf, str } from "../rest/body-fields.ts"
import { trashNotSupported, wcError } from "../rest/errors.ts"
import { idFilter, includeOrder, readCommonList } from "../rest/list-params.ts"
import { listReply, pageOf } from "../rest/list-reply.ts"
import { imageInput } from "../products/media.ts"
import type { Json, RenderContext } from "../rest/render.ts"
import type { StoreState } from "../state.ts"
import type { TermGroup, TermInput, TermRecord } from "./taxonomy.ts"

const ORDERBY = ["id", "include", "name", "slug", "term_group", "description", "count"] as const

export interface TermFamily {
  /** Collection path, e.g. /products/categories or /products/attributes/:attribute_id/terms */
  path: string
  /** The taxonomy the request addresses (throws for an unknown attribute). */
  group: (s: StoreState, params: Params) => TermGroup
  json: (s: StoreState, t: TermRecord, r: RenderContext, params: Params) => Json
  /** For the "do not support trashing" message, e.g. "Categories". */
  plural: string
}

const termInput = (s: StoreState, b: Body): TermInput => {
  const image = b["image"] === null ? null : object(b, "image")
  return {
    name: str(b, "name"),
    slug: str(b, "slug"),
    description: str(b, "description"),
    parent: int(b, "parent"),
    menu_order: int(b, "menu_order"),
    display: oneOf(b, "display", ["default", "products", "subcategories", "both"]),
    // An image object without id or src removes the image.
    imageId: image === undefined ? undefined : image === null || (image["id"] === undefined && image["src"] === undefined) ? 0 : s.media.resolve(imageInput(image, "image")).id,
  }
}

const compareText = (x: string, y: string): number => x.toLowerCase().localeCompare(y.toLowerCase())

export const registerTerms = (router: Router<Handler>, family: TermFamily): void => {
  const find = (s: StoreState, params: Params, id: number): TermRecord => {
    const term = s.taxonomy.term(family.group(s, params), id)
    if (term === undefined) throw wcError(404, "woocommerce_rest_term_invalid", "Resource does not exist.")
    return term
  }
  const render = (ctx: RequestContext, params: Params, t: TermRecord) => family.json(ctx.state, t, ctx.render(2), params)
  const create = (ctx: RequestContext, params: Params, b: Body) => ctx.state.taxonomy.createTerm(family.group(ctx.state, params), termInput(ctx.state, b))
  const update = (ctx: RequestContext, params: Params, id: number, b: Body) => ctx.state.taxonomy.updateTerm(find(ctx.state, params, id), termInput(ctx.state, b))
  const remove = (ctx: RequestContext, params: Params, id: number) => {
    const term = find(ctx.state, params, id)
    const body = render(ctx, params, term)
    ctx.state.taxonomy.deleteTerm(term)
    return body
  }

  const list: Handler = (ctx, params) => {
    const s = ctx.state
    const group = family.group(s, params)
    const p = ctx.args()
    const common = readCommonList(p, s.site, { orderby: ORDERBY, orderbyDefault: "name", orderDefault: "asc", modifiedFilter: false, createdFilter: false })
    const search = p.string("search")?.toLowerCase()
    const hideEmpty = p.bool("hide_empty", false)
    const parent = p.int("parent")
    const product = p.int("product")
    const slug = p.string("slug")
    p.check()
    const ids = idFilter(common)
    const holder = product === undefined ? undefined : s.productById.get(product)
    const rows = s.taxonomy.inGroup(group).filter(
      (t) =>
        (ids === undefined || ids(t.id)) &&
        (search === undefined || search === "" || t.name.toLowerCase().includes(search) || t.slug.includes(search)) &&
        (!hideEmpty || s.taxonomy.count(t) > 0) &&
        (parent === undefined || t.parent === parent) &&
        (product === undefined || (holder !== undefined && s.taxonomy.holds(holder, t))) &&
        (slug === undefined || slug.split(",").includes(t.slug)),
    )
    const compare: (a: TermRecord, b: TermRecord) => number =
      common.orderby === "include"
        ? includeOrder(common)
        : common.orderby === "name"
          ? (a, b) => compareText(a.name, b.name)
          : common.orderby === "slug"
            ? (a, b) => compareText(a.slug, b.slug)
            : common.orderby === "description"
              ? (a, b) => compareText(a.description, b.description)
              : common.orderby === "count"
                ? (a, b) => s.taxonomy.count(a) - s.taxonomy.count(b)
                : (a, b) => a.id - b.id
    const r = ctx.render(2)
    return listReply(ctx, common, pageOf(rows, common, compare, s.listRng()), (t) => family.json(s, t, r, params))
  }

  const item = `${family.path}/:id`
  const updateHandler: Handler = (ctx, params) => json(200, render(ctx, params, update(ctx, params, Number(params["id"]), ctx.body)))
  router
    .add("GET", family.path, list)
    .add("POST", family.path, (ctx, params) => {
      const t = create(ctx, params, ctx.body)
      return json(201, render(ctx, params, t))
    })
    .add("POST", `${family.path}/batch`, (ctx, params) =>
      batchHandler({
        create: (c, b) => render(c, params, create(c, params, b)),
        update: (c, b) => render(c, params, update(c, params, Number(b["id"] ?? 0), b)),
        delete: (c, id) => remove(c, params, id),
      })(ctx, params),
    )
    .add("GET", item, (ctx, params) => json(200, render(ctx, params, find(ctx.state, params, Number(params["id"])))))
    .add("PUT", item, updateHandler)
    .add("PATCH", item, updateHandler)
    .add("POST", item, updateHandler)
    .add("DELETE", item, (ctx, params) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      find(ctx.state, params, Number(params["id"]))
      if (!force) throw trashNotSupported(family.plural)
      return json(200, remove(ctx, params, Number(params["id"])))
    })
}
