// Refunds: per order (/orders/<id>/refunds) and store-wide (/refunds, WooCommerce >= 9.0, list only).
import { type Reply, json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { TAX_RATES, rateCode } from "../catalog.ts"
import { invalidId, wcError } from "../rest/errors.ts"
import { refundInput } from "../input.ts"
import { type CommonList, idFilter, includeOrder, readCommonList } from "../rest/list-params.ts"
import { listReply, pageOf } from "../rest/list-reply.ts"
import type { RefundRecord } from "../model.ts"
import { formatMoney, rawDecimal } from "../money.ts"
import { lineName } from "./order-json.ts"
import { runList, within } from "../rest/query.ts"
import { type Json, type RenderContext, datePair, links, pickFields } from "../rest/render.ts"
import type { StoreState } from "../state.ts"

const ORDERBY = ["date", "id", "include", "title", "slug", "modified"] as const
type Orderby = (typeof ORDERBY)[number]

/** A refund as the API shows it: positive amount, negative line quantities and totals. */
const refundJson = (s: StoreState, f: RefundRecord, r: RenderContext, storeWide: boolean): Json => {
  const order = s.orderById.get(f.orderId)!
  const money = (cents: number) => formatMoney(-cents, r.dp)
  const rate = order.taxRate >= 0 ? TAX_RATES[order.taxRate] : undefined
  const lineItems = f.line_items.map((l) => {
    const refunded = order.line_items.find((x) => x.id === l.orderItemId)
    const productId = refunded?.productId ?? 0
    const variationId = refunded?.variationId ?? 0
    const { name, sku } = lineName(s, productId, variationId)
    const item = String(l.orderItemId)
    return {
      id: l.id,
      name,
      product_id: productId,
      variation_id: variationId,
      quantity: -l.quantity,
      tax_class: "",
      subtotal: money(l.total),
      subtotal_tax: money(l.tax),
      total: money(l.total),
      total_tax: money(l.tax),
      taxes: rate === undefined ? [] : [{ id: rate.id, total: rawDecimal(-l.tax), subtotal: rawDecimal(-l.tax) }],
      meta_data: [{ id: l.id * 8, key: "_refunded_item_id", value: item, display_key: "_refunded_item_id", display_value: item }],
      sku,
      price: l.quantity === 0 ? 0 : l.total / 100 / l.quantity,
      image: { id: "", src: "" },
      parent_name: null,
    }
  })
  const taxTotal = f.line_items.reduce((sum, l) => sum + l.tax, 0)
  const taxLines =
    rate === undefined || f.taxItemId === 0
      ? []
      : [{ id: f.taxItemId, rate_code: rateCode(rate), rate_id: rate.id, label: rate.name, compound: false, tax_total: money(taxTotal), shipping_tax_total: money(0), rate_percent: rate.ppm / 10000, meta_data: [] }]
  const created = datePair(r, f.created)
  return {
    id: f.id,
    ...(storeWide ? { parent_id: f.orderId } : {}),
    date_created: created.local,
    date_created_gmt: created.gmt,
    amount: formatMoney(f.amount, r.dp),
    reason: f.reason,
    refunded_by: f.refundedBy,
    refunded_payment: f.refundedPayment,
    meta_data: [],
    line_items: lineItems,
    shipping_lines: [],
    tax_lines: taxLines,
    fee_lines: [],
    _links: links(r, { self: `/orders/${f.orderId}/refunds/${f.id}`, collection: `/orders/${f.orderId}/refunds`, up: `/orders/${f.orderId}` }),
  }
}

const readList = (ctx: RequestContext): { common: CommonList<Orderby>; parent: number[] | undefined; parentExclude: number[] | undefined } => {
  const p = ctx.args()
  const common = readCommonList(p, ctx.state.site, { orderby: ORDERBY, orderbyDefault: "date", modifiedFilter: false, createdFilter: true })
  const parent = p.ids("parent")
  const parentExclude = p.ids("parent_exclude")
  p.check()
  return { common, parent, parentExclude }
}

/** Refunds have no modified date of their own: date, modified, title and slug all order by creation. */
const sortOf = (common: CommonList<Orderby>) =>
  common.orderby === "id" ? "id" : common.orderby === "include" ? includeOrder(common) : "created"

const listOrderRefunds: Handler = (ctx, { order_id }) => {
  const s = ctx.state
  const { common } = readList(ctx)
  const ids = idFilter(common)
  const created = within(common.created, common.local, s.site)
  const rows = (s.orderById.get(Number(order_id))?.refundIds ?? [])
    .map((id) => s.refundById.get(id)!)
    .filter((f) => (ids === undefined || ids(f.id)) && created(f.created))
  const sort = sortOf(common)
  const compare = typeof sort === "function" ? sort : sort === "id" ? (a: RefundRecord, b: RefundRecord) => a.id - b.id : (a: RefundRecord, b: RefundRecord) => a.created - b.created
  const r = ctx.render(common.dp)
  return listReply(ctx, common, pageOf(rows, common, compare, s.listRng()), (f) => refundJson(s, f, r, false))
}

const listStoreRefunds: Handler = (ctx) => {
  const s = ctx.state
  const { common, parent, parentExclude } = readList(ctx)
  const ids = idFilter(common)
  const tests: ((f: RefundRecord) => boolean)[] = []
  if (ids !== undefined) tests.push((f) => ids(f.id))
  if (parent !== undefined) tests.push((f) => parent.includes(f.orderId))
  if (parentExclude !== undefined) tests.push((f) => !parentExclude.includes(f.orderId))
  const result = runList(
    {
      families: [s.refundIndex],
      sort: sortOf(common),
      desc: common.desc,
      created: common.created,
      local: common.local,
      predicate: tests.length === 0 ? undefined : (f) => tests.every((t) => t(f)),
      offset: common.skip,
      limit: common.perPage,
      rng: s.listRng(),
    },
    s.site,
  )
  const r = ctx.render(common.dp)
  return listReply(ctx, common, result, (f) => refundJson(s, f, r, true))
}

const refundReply = (status: number, ctx: RequestContext, f: RefundRecord): Reply => {
  const p = ctx.args()
  const dp = p.int("dp", { def: 2, min: 0 })!
  const fields = p.list("_fields")
  p.check()
  return json(status, pickFields(refundJson(ctx.state, f, ctx.render(dp), false), fields))
}

const findRefund = (s: StoreState, orderId: string, refundId: string): RefundRecord => {
  const refund = s.refundById.get(Number(refundId))
  if (refund === undefined || refund.orderId !== Number(orderId)) throw invalidId("shop_order_refund")
  return refund
}

export const registerRefunds = (router: Router<Handler>, storeWide: boolean): void => {
  router
    .add("GET", "/orders/:order_id/refunds", listOrderRefunds)
    .add("POST", "/orders/:order_id/refunds", (ctx, { order_id }) => refundReply(201, ctx, ctx.state.createRefund(Number(order_id), refundInput(ctx.body))))
    .add("GET", "/orders/:order_id/refunds/:id", (ctx, { order_id, id }) => refundReply(200, ctx, findRefund(ctx.state, order_id!, id!)))
    .add("DELETE", "/orders/:order_id/refunds/:id", (ctx, { order_id, id }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      const refund = findRefund(ctx.state, order_id!, id!)
      if (!force) throw wcError(501, "woocommerce_rest_trash_not_supported", "Refunds do not support trashing.")
      const body = refundReply(200, ctx, refund)
      ctx.state.deleteRefund(refund.orderId, refund.id)
      return body
    })
  // Stores older than WooCommerce 9.0 have no store-wide route at all.
  if (storeWide) router.add("GET", "/refunds", listStoreRefunds)
}
