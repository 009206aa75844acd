import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import {
  Download,
  ReferenceEntry,
  SettingGroup,
  TopSeller,
  validator,
  WithId,
  WithSlug,
  WithStringId,
  ZoneMethod
} from "../../store-client/schemas.js"
import { StoreDocumentInvalid } from "../../store-client/errors.js"
import { query } from "../../warehouse/writer.js"
import type { ResourceStreamName, RunContext } from "../context.js"
import { fullPassDone, fullPassDue } from "../full-pass.js"
import { type Json, type Listing, refreshScopes, type ResourceSpec, retireOrphans } from "./refresh.js"

/** Refreshes one of the resources below; children take the full-pass period (SHOPSYNC_CHILDREN_FULL_PASS_HOURS). */
type Run = (ctx: RunContext, childrenFullPassHours: number) => Effect.Effect<{ rows: number; deleted: number }, unknown, StoreClient | SqlClient.SqlClient>

const byId = (doc: Json) => String(doc["id"])
const bySlug = (doc: Json) => String(doc["slug"])
const idOrder = { orderby: "id", order: "asc" } as const
const one = (listing: Listing) => () => [listing]

const spec = {
  tax_rates: { table: "store.tax_rates", listings: one({ path: "/taxes", params: idOrder }), paged: true, key: byId, item: (_, k) => `/taxes/${k}`, check: validator(WithId) },
  tax_classes: { table: "store.tax_classes", listings: one({ path: "/taxes/classes" }), paged: false, key: bySlug, check: validator(WithSlug) },
  // status=all is approved and held only: spam and trash are lists of their own.
  product_reviews: {
    table: "store.product_reviews",
    listings: () => ["all", "spam", "trash"].map((status) => ({ path: "/products/reviews", params: { ...idOrder, status } })),
    paged: true,
    key: byId,
    item: (_, k) => `/products/reviews/${k}`,
    check: validator(WithId)
  },
  product_attributes: { table: "store.product_attributes", listings: one({ path: "/products/attributes" }), paged: false, key: byId, check: validator(WithId) },
  attribute_terms: {
    table: "store.attribute_terms",
    child: true,
    listings: (attribute) => [{ path: `/products/attributes/${attribute}/terms`, params: idOrder }],
    paged: true,
    key: byId,
    item: (attribute, k) => `/products/attributes/${attribute}/terms/${k}`,
    check: validator(WithId)
  },
  product_categories: {
    table: "store.product_categories",
    listings: one({ path: "/products/categories", params: idOrder }),
    paged: true,
    key: byId,
    item: (_, k) => `/products/categories/${k}`,
    check: validator(WithId)
  },
  shipping_classes: {
    table: "store.shipping_classes",
    listings: one({ path: "/products/shipping_classes", params: idOrder }),
    paged: true,
    key: byId,
    item: (_, k) => `/products/shipping_classes/${k}`,
    check: validator(WithId)
  },
  shipping_zones: { table: "store.shipping_zones", listings: one({ path: "/shipping/zones" }), paged: false, key: byId, check: validator(WithId) },
  shipping_zone_methods: {
    table: "store.shipping_zone_methods",
    child: true,
    listings: (zone) => [{ path: `/shipping/zones/${zone}/methods` }],
    paged: false,
    key: (doc) => String(doc["instance_id"]),
    check: validator(ZoneMethod)
  },
  order_notes: { table: "store.order_notes", child: true, listings: (order) => [{ path: `/orders/${order}/notes` }], paged: false, key: byId, check: validator(WithId) },
  // A download permission has no id of its own: one per file and order.
  customer_downloads: {
    table: "store.customer_downloads",
    child: true,
    listings: (customer) => [{ path: `/customers/${customer}/downloads` }],
    paged: false,
    key: (doc) => `${String(doc["download_id"])}:${String(doc["order_id"])}`,
    check: validator(Download)
  },
  settings: { table: "store.settings", child: true, listings: (group) => [{ path: `/settings/${group}` }], paged: false, key: byId, check: validator(WithStringId) },
  reference_data: {
    table: "store.reference_data",
    listings: (scope) => [scope === "index" ? { path: "/data" } : scope === "current" ? { path: "/data/currencies/current", single: true } : { path: `/data/${scope}` }],
    paged: false,
    key: (doc) => String(doc["code"] ?? doc["slug"]),
    check: validator(ReferenceEntry)
  },
  system_status_tools: { table: "store.system_status_tools", listings: one({ path: "/system_status/tools" }), paged: false, key: byId, check: validator(WithStringId) },
  // status=all includes paused and disabled webhooks; a trashed one leaves the list.
  webhooks: { table: "store.webhooks", listings: one({ path: "/webhooks", params: { ...idOrder, status: "all" } }), paged: true, key: byId, check: validator(WithId) },
  report_top_sellers: {
    table: "store.report_top_sellers",
    listings: (period) => [{ path: "/reports/top_sellers", params: { period } }],
    paged: false,
    key: (doc) => String(doc["product_id"]),
    check: validator(TopSeller)
  },
  report_totals: { table: "store.report_totals", listings: (report) => [{ path: `/reports/${report}/totals` }], paged: false, key: bySlug, check: validator(WithSlug) }
} satisfies Record<ResourceStreamName, ResourceSpec>

/** The warehouse table each resource stream writes. */
export const RESOURCE_TABLES: Record<ResourceStreamName, string> = Object.fromEntries(
  Object.entries(spec).map(([name, s]) => [name, s.table])
) as Record<ResourceStreamName, string>

const counts = (r: { written: number; deleted: number }, orphans = 0) => ({ rows: r.written, deleted: r.deleted + orphans })

/** A resource with one list: the whole of it every run. Its changed keys are kept for its children. */
const whole = (name: ResourceStreamName): Run => (ctx) =>
  refreshScopes(spec[name], ctx.storeId, [""]).pipe(
    Effect.tap((r) => Effect.sync(() => ctx.resourceChanges.set(name, r.changed))),
    Effect.map((r) => counts(r))
  )

/** A resource read through a fixed set of requests (one scope each), all of them every run. */
const fixed = (name: ResourceStreamName, scopes: ReadonlyArray<string>): Run => (ctx) =>
  refreshScopes(spec[name], ctx.storeId, scopes).pipe(Effect.map((r) => counts(r)))

/**
 * A child resource: read for the parents that changed this run, and for every live parent on a periodic
 * full pass (what the API cannot signal: a note does not touch its order, a term not its attribute).
 * Children of parents that are gone are marked deleted.
 */
const children = (
  name: ResourceStreamName,
  parents: (ctx: RunContext) => Effect.Effect<ReadonlyArray<string>, unknown, SqlClient.SqlClient>,
  changed: (ctx: RunContext) => Iterable<string | number>
): Run => (ctx, hours) =>
  Effect.gen(function*() {
    const live = yield* parents(ctx)
    const full = yield* fullPassDue(ctx, name, hours)
    const liveSet = new Set(live)
    const scopes = full ? live : [...new Set([...changed(ctx)].map(String))].filter((key) => liveSet.has(key))
    const refreshed = yield* refreshScopes(spec[name], ctx.storeId, scopes)
    const orphans = yield* retireOrphans(spec[name], ctx.storeId, live)
    if (full) yield* fullPassDone(ctx, name)
    return counts(refreshed, orphans)
  })

const keysOf = (sqlName: string, params: ReadonlyArray<unknown>) =>
  query<{ key: string }>(sqlName, params).pipe(Effect.map((rows) => rows.map((r) => r.key)))
const topLevelKeys = (table: string) => (ctx: RunContext) => keysOf("scope_keys", [table, ctx.storeId, [""]])

/** Every group the store lists (GET /settings), each refreshed whole; groups that vanish take their options along. */
const settings: Run = (ctx) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const page = yield* store.list("/settings")
    const problem = validator(SettingGroup)(page.items)
    if (problem !== undefined) return yield* new StoreDocumentInvalid({ url: "/settings", detail: problem })
    const groups = (page.items as ReadonlyArray<{ id: string }>).map((g) => g.id)
    const refreshed = yield* refreshScopes(spec.settings, ctx.storeId, groups)
    return counts(refreshed, yield* retireOrphans(spec.settings, ctx.storeId, groups))
  })

export interface ResourceStream {
  readonly run: Run
  /** 1: read on their own; 2: children, after the resources whose changes they follow. */
  readonly wave: 1 | 2
}

export const RESOURCES: Record<ResourceStreamName, ResourceStream> = {
  order_notes: { wave: 2, run: children("order_notes", (ctx) => keysOf("parents_orders", [ctx.storeId]), (ctx) => ctx.changedOrders) },
  customer_downloads: {
    wave: 2,
    run: children("customer_downloads", (ctx) => keysOf("parents_customers", [ctx.storeId]), (ctx) => [...ctx.changedCustomers, ...ctx.orderCustomers])
  },
  tax_rates: { wave: 1, run: whole("tax_rates") },
  tax_classes: { wave: 1, run: whole("tax_classes") },
  product_reviews: { wave: 1, run: whole("product_reviews") },
  product_attributes: { wave: 1, run: whole("product_attributes") },
  attribute_terms: {
    wave: 2,
    run: children("attribute_terms", topLevelKeys(spec.product_attributes.table), (ctx) => ctx.resourceChanges.get("product_attributes") ?? [])
  },
  product_categories: { wave: 1, run: whole("product_categories") },
  shipping_classes: { wave: 1, run: whole("shipping_classes") },
  shipping_zones: { wave: 1, run: whole("shipping_zones") },
  shipping_zone_methods: {
    wave: 2,
    run: children("shipping_zone_methods", topLevelKeys(spec.shipping_zones.table), (ctx) => ctx.resourceChanges.get("shipping_zones") ?? [])
  },
  settings: { wave: 1, run: settings },
  reference_data: { wave: 1, run: fixed("reference_data", ["index", "continents", "countries", "currencies", "current"]) },
  system_status_tools: { wave: 1, run: whole("system_status_tools") },
  webhooks: { wave: 1, run: whole("webhooks") },
  report_top_sellers: { wave: 1, run: fixed("report_top_sellers", ["week", "month", "last_month", "year"]) },
  report_totals: { wave: 1, run: fixed("report_totals", ["coupons", "customers", "orders", "products", "reviews"]) }
}
