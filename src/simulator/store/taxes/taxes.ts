// /taxes (tax rates, seed part 1 §4.6) and /taxes/classes (seed part 2 §4.13). A rate shows both the 5.3 arrays
// (postcodes, cities) and the deprecated single fields, which hold the last location of each list, as WooCommerce
// fills them. Deleting a class deletes its rates.
import { json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { batchHandler } from "../rest/batch.ts"
import { type Body, bool, int, str, strList } from "../rest/body-fields.ts"
import { trashNotSupported, wcError } from "../rest/errors.ts"
import { idFilter, readCommonList } from "../rest/list-params.ts"
import { listReply, pageOf } from "../rest/list-reply.ts"
import { type Json, type RenderContext, links } from "../rest/render.ts"
import type { StoreState } from "../state.ts"
import type { TaxClassRecord, TaxRateInput, TaxRateRecord } from "./tax-store.ts"

const ORDERBY = ["id", "order", "priority"] as const

const rateJson = (t: TaxRateRecord, r: RenderContext): Json => ({
  id: t.id,
  country: t.country,
  state: t.state,
  postcode: t.postcodes.at(-1) ?? "",
  city: t.cities.at(-1) ?? "",
  postcodes: t.postcodes,
  cities: t.cities,
  rate: t.rate,
  name: t.name,
  priority: t.priority,
  compound: t.compound,
  shipping: t.shipping,
  order: t.order,
  class: t.taxClass === "" ? "standard" : t.taxClass,
  _links: links(r, { self: `/taxes/${t.id}`, collection: "/taxes" }),
})

const classJson = (c: TaxClassRecord, r: RenderContext): Json => ({
  slug: c.slug,
  name: c.name,
  _links: links(r, { collection: "/taxes/classes" }),
})

const rateInput = (b: Body): TaxRateInput => ({
  country: str(b, "country"),
  state: str(b, "state"),
  postcode: str(b, "postcode"),
  city: str(b, "city"),
  postcodes: strList(b, "postcodes"),
  cities: strList(b, "cities"),
  rate: str(b, "rate"),
  name: str(b, "name"),
  priority: int(b, "priority"),
  compound: bool(b, "compound"),
  shipping: bool(b, "shipping"),
  order: int(b, "order"),
  class: str(b, "class"),
})

const findRate = (s: StoreState, id: number, status = 404): TaxRateRecord => {
  const rate = s.taxes.rates.get(id)
  if (rate === undefined) throw wcError(status, "woocommerce_rest_invalid_id", "Invalid resource ID.")
  return rate
}

const listRates: Handler = (ctx) => {
  const s = ctx.state
  const p = ctx.args()
  const common = readCommonList(p, s.site, { orderby: ORDERBY, orderbyDefault: "order", orderDefault: "asc", modifiedFilter: false, createdFilter: false })
  const taxClass = p.string("class")
  p.check()
  const ids = idFilter(common)
  const wanted = taxClass === "standard" ? "" : taxClass
  const rows = [...s.taxes.rates.values()].filter((t) => (ids === undefined || ids(t.id)) && (wanted === undefined || t.taxClass === wanted))
  const compare: (a: TaxRateRecord, b: TaxRateRecord) => number =
    common.orderby === "order"
      ? (a, b) => a.order - b.order
      : common.orderby === "priority"
        ? (a, b) => a.priority - b.priority
        : (a, b) => a.id - b.id
  const r = ctx.render(2)
  return listReply(ctx, common, pageOf(rows, common, compare, s.listRng()), (t) => rateJson(t, r))
}

const removeRate = (ctx: RequestContext, id: number): Json => {
  const rate = findRate(ctx.state, id)
  ctx.state.taxes.rates.delete(id)
  return rateJson(rate, ctx.render(2))
}

export const registerTaxes = (router: Router<Handler>): void => {
  const update: Handler = (ctx, { id }) => json(200, rateJson(ctx.state.taxes.updateRate(findRate(ctx.state, Number(id), 400), rateInput(ctx.body)), ctx.render(2)))
  router
    .add("GET", "/taxes/classes", (ctx) => {
      const r = ctx.render(2)
      return json(200, ctx.state.taxes.allClasses().map((c) => classJson(c, r)))
    })
    .add("POST", "/taxes/classes", (ctx) => json(201, classJson(ctx.state.taxes.createClass(str(ctx.body, "name")), ctx.render(2))))
    .add("GET", "/taxes/classes/{slug}", (ctx, { slug }) => {
      const c = ctx.state.taxes.allClasses().find((x) => x.slug === slug)
      if (c === undefined) throw wcError(404, "woocommerce_rest_invalid_id", "Invalid resource id.")
      return json(200, classJson(c, ctx.render(2)))
    })
    .add("DELETE", "/taxes/classes/{slug}", (ctx, { slug }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      if (!ctx.state.taxes.classes.some((c) => c.slug === slug)) throw wcError(404, "woocommerce_rest_invalid_id", "Invalid resource id.")
      if (!force) throw trashNotSupported("Tax classes")
      return json(200, classJson(ctx.state.taxes.deleteClass(slug!), ctx.render(2)))
    })
    .add("GET", "/taxes", listRates)
    .add("POST", "/taxes", (ctx) => {
      const rate = ctx.state.taxes.createRate(rateInput(ctx.body))
      return json(201, rateJson(rate, ctx.render(2)), { Location: `${ctx.apiUrl}/taxes/${rate.id}` })
    })
    .add(
      "POST",
      "/taxes/batch",
      batchHandler({
        create: (ctx, b) => rateJson(ctx.state.taxes.createRate(rateInput(b)), ctx.render(2)),
        update: (ctx, b) => rateJson(ctx.state.taxes.updateRate(findRate(ctx.state, Number(b["id"] ?? 0), 400), rateInput(b)), ctx.render(2)),
        delete: removeRate,
      }),
    )
    .add("GET", "/taxes/:id", (ctx, { id }) => json(200, rateJson(findRate(ctx.state, Number(id)), ctx.render(2))))
    .add("PUT", "/taxes/:id", update)
    .add("PATCH", "/taxes/:id", update)
    .add("POST", "/taxes/:id", update)
    .add("DELETE", "/taxes/:id", (ctx, { id }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      findRate(ctx.state, Number(id))
      if (!force) throw trashNotSupported("Taxes")
      return json(200, removeRate(ctx, Number(id)))
    })
}
