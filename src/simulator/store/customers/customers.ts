// /customers routes: list, read, create, update, delete (force required, reassign), batch and downloads.
// Customers have no modified filter (a client must scan them all and compare).
import { createHash } from "node:crypto"
import { type Reply, json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler, RequestContext } from "../app.ts"
import { batchHandler } from "../rest/batch.ts"
import { customerAddresses, STANDARD_ROLES } from "./customer-writes.ts"
import { customerDownloads } from "./downloads.ts"
import { invalidId, trashNotSupported } from "../rest/errors.ts"
import { customerInput } from "../input.ts"
import { idFilter, includeOrder, readCommonList } from "../rest/list-params.ts"
import { listReply, pageOf, slicePage } from "../rest/list-reply.ts"
import type { CustomerRecord } from "../model.ts"
import { type Json, type RenderContext, datePair, links, pickFields } from "../rest/render.ts"
import type { StoreState } from "../state.ts"

const ORDERBY = ["id", "include", "name", "registered_date"] as const

export const customerJson = (c: CustomerRecord, r: RenderContext): Json => {
  const created = datePair(r, c.created)
  const modified = datePair(r, c.modified)
  const { billing, shipping } = customerAddresses(c)
  const hash = createHash("md5").update(c.email.trim().toLowerCase()).digest("hex")
  return {
    id: c.id,
    date_created: created.local,
    date_created_gmt: created.gmt,
    date_modified: modified.local,
    date_modified_gmt: modified.gmt,
    email: c.email,
    first_name: c.firstName,
    last_name: c.lastName,
    role: c.role,
    username: c.username,
    billing,
    shipping,
    is_paying_customer: c.isPaying,
    avatar_url: `https://secure.gravatar.com/avatar/${hash}?s=96&d=mm&r=g`,
    meta_data: c.metaData,
    _links: links(r, { self: `/customers/${c.id}`, collection: "/customers" }),
  }
}

// WordPress orders users by display_name for orderby=name; a WooCommerce customer's display name is its login.
// WP_User_Query adds no tie-breaker: equal names or registration seconds tie (see pageOf).
const COMPARE: Record<Exclude<(typeof ORDERBY)[number], "include">, (a: CustomerRecord, b: CustomerRecord) => number> = {
  id: (a, b) => a.id - b.id,
  name: (a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0),
  registered_date: (a, b) => a.created - b.created,
}

// Sorted customer lists per (orderby, role), rebuilt only after a customer write: a full scan by a sync client
// then costs a slice per page instead of a sort of every customer.
const sortedCache = new WeakMap<StoreState, { revision: number; lists: Map<string, CustomerRecord[]> }>()

const sortedCustomers = (s: StoreState, orderby: keyof typeof COMPARE, role: string): CustomerRecord[] => {
  let cache = sortedCache.get(s)
  if (cache === undefined || cache.revision !== s.customerRevision) {
    cache = { revision: s.customerRevision, lists: new Map() }
    sortedCache.set(s, cache)
  }
  const key = `${orderby}:${role}`
  let list = cache.lists.get(key)
  if (list === undefined) {
    list = [...s.customerById.values()].filter((c) => role === "all" || c.role === role).sort(COMPARE[orderby])
    cache.lists.set(key, list)
  }
  return list
}

const listCustomers: Handler = (ctx) => {
  const s = ctx.state
  const p = ctx.args()
  const common = readCommonList(p, s.site, { orderby: ORDERBY, orderbyDefault: "name", orderDefault: "asc", modifiedFilter: false, createdFilter: false })
  const email = p.string("email")?.toLowerCase()
  // The role filter's values are the store's registered roles, its own included.
  const role: string = p.oneOf("role", ["all", ...STANDARD_ROLES, ...s.customRoles], "customer")
  const search = p.string("search")?.replace(/\*/g, "").toLowerCase()
  p.check()
  const ids = idFilter(common)
  const r = ctx.render(common.dp)
  const render = (c: CustomerRecord) => customerJson(c, r)
  if (common.orderby !== "include" && ids === undefined && email === undefined && (search === undefined || search === "")) {
    const compare = COMPARE[common.orderby]
    const ties = { same: (a: CustomerRecord, b: CustomerRecord) => compare(a, b) === 0, rng: s.listRng() }
    return listReply(ctx, common, slicePage(sortedCustomers(s, common.orderby, role), common, ties), render)
  }
  const rows = sortedCustomers(s, "id", role).filter(
    (c) =>
      (ids === undefined || ids(c.id)) &&
      (email === undefined || c.email.toLowerCase() === email) &&
      (search === undefined || search === "" || [c.email, c.username, c.firstName, c.lastName].some((v) => v.toLowerCase().includes(search))),
  )
  const compare = common.orderby === "include" ? includeOrder(common) : COMPARE[common.orderby]
  return listReply(ctx, common, pageOf(rows, common, compare, s.listRng()), render)
}

const customerReply = (status: number, ctx: RequestContext, c: CustomerRecord, headers?: Record<string, string>): Reply => {
  const fields = ctx.args().list("_fields")
  return json(status, pickFields(customerJson(c, ctx.render(2)), fields), headers)
}

export const registerCustomers = (router: Router<Handler>): void => {
  const update: Handler = (ctx, { id }) => customerReply(200, ctx, ctx.state.updateCustomer(Number(id), customerInput(ctx.body)))
  router
    .add("GET", "/customers", listCustomers)
    .add("POST", "/customers", (ctx) => {
      const c = ctx.state.createCustomer(customerInput(ctx.body))
      return customerReply(201, ctx, c, { Location: `${ctx.apiUrl}/customers/${c.id}` })
    })
    .add("GET", "/customers/:id", (ctx, { id }) => customerReply(200, ctx, findCustomer(ctx.state, id!)))
    .add("PUT", "/customers/:id", update)
    .add("PATCH", "/customers/:id", update)
    .add("POST", "/customers/:id", update)
    .add("DELETE", "/customers/:id", (ctx, { id }) => {
      const p = ctx.args()
      const force = p.bool("force", false)
      const reassign = p.int("reassign")
      p.check()
      const c = findCustomer(ctx.state, id!)
      if (!force) throw trashNotSupported("Customers")
      const body = customerJson(c, ctx.render(2))
      ctx.state.deleteCustomer(c.id, reassign)
      return json(200, body)
    })
    .add(
      "POST",
      "/customers/batch",
      batchHandler({
        create: (ctx, item) => customerJson(ctx.state.createCustomer(customerInput(item)), ctx.render(2)),
        update: (ctx, item) => customerJson(ctx.state.updateCustomer(Number(item["id"] ?? 0), customerInput(item)), ctx.render(2)),
        delete: (ctx, id) => {
          const body = customerJson(findCustomer(ctx.state, String(id)), ctx.render(2))
          ctx.state.deleteCustomer(id, undefined)
          return body
        },
      }),
    )
    .add("GET", "/customers/:id/downloads", (ctx, { id }) => json(200, customerDownloads(ctx.state, findCustomer(ctx.state, id!), ctx.render(2))))
}

const findCustomer = (s: StoreState, id: string): CustomerRecord => {
  const c = s.customerById.get(Number(id))
  if (c === undefined) throw invalidId("customer")
  return c
}
