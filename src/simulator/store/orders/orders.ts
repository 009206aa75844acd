// /orders routes: list, read, create, update, trash or delete, batch.
import { type Reply, json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler } from "../app.ts"
import { invalidId } from "../rest/errors.ts"
import { orderInput } from "../input.ts"
import { type CommonList, idFilter, includeOrder, readCommonList } from "../rest/list-params.ts"
import { ORDER_STATUSES, type OrderRecord } from "../model.ts"
import { orderAddresses, orderJson } from "./order-json.ts"
import { type ListPlan, runList } from "../rest/query.ts"
import { listReply } from "../rest/list-reply.ts"
import { batchHandler } from "../rest/batch.ts"
import { embedTemplates } from "./order-actions.ts"
import { pickFields } from "../rest/render.ts"
import type { StoreState } from "../state.ts"

const ORDERBY = ["date", "id", "include", "title", "slug", "modified"] as const
const STATUS_FILTER = ["any", ...ORDER_STATUSES] as const

const sortOf = (common: CommonList<(typeof ORDERBY)[number]>): ListPlan<OrderRecord>["sort"] => {
  switch (common.orderby) {
    case "date":
      return "created"
    case "modified":
      return "modified"
    case "include":
      return includeOrder(common)
    default:
      // Titles and slugs of orders are "Order – <date>" texts; ordering by them adds nothing over ids.
      return "id"
  }
}

const matchesSearch = (o: OrderRecord, needle: string): boolean => {
  if (String(o.id) === needle) return true
  const { billing } = orderAddresses(o)
  return [billing.first_name, billing.last_name, billing.email].some((v) => v?.toLowerCase().includes(needle))
}

const listOrders: Handler = (ctx) => {
  const s = ctx.state
  const p = ctx.args()
  const common = readCommonList(p, s.site, { orderby: ORDERBY, orderbyDefault: "date", modifiedFilter: true, createdFilter: true })
  const given = p.manyOf("status", STATUS_FILTER)
  const statuses = given === undefined || given.length === 0 ? ["any"] : given
  const customer = p.int("customer")
  const product = p.int("product")
  const parent = p.ids("parent")
  const parentExclude = p.ids("parent_exclude")
  const createdVia = p.list("created_via")
  const search = p.string("search")?.trim().toLowerCase()
  p.check()

  // status=any means every status but trash; trashed orders live in their own index.
  const any = statuses.includes("any")
  const trash = statuses.includes("trash")
  const named = new Set<string>(statuses.filter((st) => st !== "any" && st !== "trash"))
  const families = [...(any || named.size > 0 ? [s.liveOrders] : []), ...(trash ? [s.trashedOrders] : [])]

  const tests: ((o: OrderRecord) => boolean)[] = []
  if (!any && named.size > 0) tests.push((o) => named.has(o.status) || o.status === "trash")
  const ids = idFilter(common)
  if (ids !== undefined) tests.push((o) => ids(o.id))
  if (customer !== undefined) tests.push((o) => o.customerId === customer)
  if (product !== undefined) tests.push((o) => o.line_items.some((l) => l.productId === product))
  if (parent !== undefined) tests.push((o) => parent.includes(o.parentId))
  if (parentExclude !== undefined) tests.push((o) => !parentExclude.includes(o.parentId))
  if (createdVia !== undefined) tests.push((o) => createdVia.includes(o.createdVia))
  if (search !== undefined && search !== "") tests.push((o) => matchesSearch(o, search))

  const result = runList(
    {
      families,
      sort: sortOf(common),
      desc: common.desc,
      created: common.created,
      modified: common.modified,
      local: common.local,
      predicate: tests.length === 0 ? undefined : (o) => tests.every((t) => t(o)),
      offset: common.skip,
      limit: common.perPage,
      rng: s.listRng(),
    },
    s.site,
  )
  const r = ctx.render(common.dp)
  return listReply(ctx, common, result, (o) => embedTemplates(ctx, s, o, orderJson(s, o, r)))
}

const orderReply = (status: number, ctx: Parameters<Handler>[0], o: OrderRecord, headers?: Record<string, string>): Reply => {
  const p = ctx.args()
  const dp = p.int("dp", { def: 2, min: 0 })!
  const fields = p.list("_fields")
  p.check()
  return json(status, pickFields(embedTemplates(ctx, ctx.state, o, orderJson(ctx.state, o, ctx.render(dp))), fields), headers)
}

const getOrder = (s: StoreState, id: string): OrderRecord => {
  const order = s.orderById.get(Number(id))
  if (order === undefined) throw invalidId("shop_order")
  return order
}

export const registerOrders = (router: Router<Handler>): void => {
  const update: Handler = (ctx, { id }) => orderReply(200, ctx, ctx.state.updateOrder(Number(id), orderInput(ctx.body)))
  router
    .add("GET", "/orders", listOrders)
    .add("POST", "/orders", (ctx) => {
      const order = ctx.state.createOrder(orderInput(ctx.body))
      return orderReply(201, ctx, order, { Location: `${ctx.apiUrl}/orders/${order.id}` })
    })
    .add(
      "POST",
      "/orders/batch",
      batchHandler({
        create: (ctx, item) => orderJson(ctx.state, ctx.state.createOrder(orderInput(item)), ctx.render(2)),
        update: (ctx, item) => orderJson(ctx.state, ctx.state.updateOrder(Number(item["id"] ?? 0), orderInput(item)), ctx.render(2)),
        delete: (ctx, id) => {
          const body = orderJson(ctx.state, getOrder(ctx.state, String(id)), ctx.render(2))
          ctx.state.forceDeleteOrder(id)
          return body
        },
      }),
    )
    .add("GET", "/orders/:id", (ctx, { id }) => orderReply(200, ctx, getOrder(ctx.state, id!)))
    .add("PUT", "/orders/:id", update)
    .add("PATCH", "/orders/:id", update)
    .add("POST", "/orders/:id", update)
    .add("DELETE", "/orders/:id", (ctx, { id }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      p.check()
      if (!force) return orderReply(200, ctx, ctx.state.trashOrder(Number(id)))
      // The answer shows the order as it was just before it vanished.
      const body = orderReply(200, ctx, getOrder(ctx.state, id!))
      ctx.state.forceDeleteOrder(Number(id))
      return body
    })
}
