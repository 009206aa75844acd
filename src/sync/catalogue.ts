import { Effect } from "effect"
import type { Counts, RunContext, StreamError, StreamIO, StreamNeeds } from "./context.js"
import { storeProfile } from "./resources/store-profile.js"
import { children, fixed, liveParents, resourceTable, settings, whole } from "./resources/streams.js"
import { syncCustomers } from "./streams/customers.js"
import { syncOrders } from "./streams/orders.js"
import { syncProducts } from "./streams/products.js"
import { syncRefunds } from "./streams/refunds.js"
import { syncReports } from "./streams/reports.js"
import { syncVariations } from "./streams/variations.js"

/** Every stream a run can take, in the order runs report them. */
export const STREAMS = [
  "orders", "refunds", "products", "customers", "reports",
  "variations", "order_notes", "customer_downloads", "tax_rates", "tax_classes", "product_reviews", "product_attributes", "attribute_terms",
  "product_categories", "shipping_classes", "shipping_zones", "shipping_zone_methods", "settings", "reference_data",
  "system_status_tools", "webhooks", "report_top_sellers", "report_totals", "store_profile"
] as const
export type StreamName = (typeof STREAMS)[number]

/** What a stream is: what it reads, where it writes, when it runs. */
export interface StreamDefinition {
  /** The warehouse table whose live rows `status` counts for it. */
  readonly table: string
  /** How it reads the store, as `status`, `--help` and docs/internals.md say it. */
  readonly strategy: string
  /** Part of the sales pipeline: what the daily views are made of, and what a backfill re-reads by default. */
  readonly sales: boolean
  /** Streams that must have ended before it starts (when they run at all). */
  readonly after: ReadonlyArray<StreamName>
  /**
   * Hours between two runs of it by a plain `sync` (0: every run), fitting how often the resource changes;
   * SHOPSYNC_REFRESH_HOURS overrides it, and a stream named with --streams runs every time.
   */
  readonly every: number
  readonly run: (ctx: RunContext, io: StreamIO) => Effect.Effect<Counts, StreamError, StreamNeeds>
}

const SALES: ReadonlyArray<StreamName> = ["orders", "refunds", "products", "customers"]
/** The store's other resources wait for the sales streams and the report, so a cron run's sales data is current first. */
const AFTER_SALES: ReadonlyArray<StreamName> = [...SALES, "reports"]
const CHILDREN = "for the parents that changed since it last ran, and every parent on a full pass each SHOPSYNC_CHILDREN_FULL_PASS_HOURS"
const REFRESH = "full refresh with change detection"

/** Children read only the parents that changed (nothing when nothing did) and all of them on their own full pass. */
const CHILD = 0
const HOURLY = 1
const DAILY = 24

const resource = (
  name: Parameters<typeof resourceTable>[0],
  strategy: string,
  every: number,
  run: StreamDefinition["run"],
  after = AFTER_SALES
): StreamDefinition => ({ table: resourceTable(name), strategy, sales: false, after, every, run })

export const CATALOGUE: Readonly<Record<StreamName, StreamDefinition>> = {
  orders: {
    table: "store.orders",
    strategy: "modified cursor (status any, then trash); forced deletions by count comparison",
    sales: true,
    after: [],
    every: 0,
    run: (ctx) => syncOrders(ctx)
  },
  refunds: {
    table: "store.refunds",
    strategy: "created cursor on store-wide /refunds, deletions by count comparison (else per order: changed, differing, full pass)",
    sales: true,
    after: [],
    every: 0,
    run: (ctx, io) => syncRefunds(ctx, io.ordersEnded)
  },
  products: {
    table: "store.products",
    strategy: "modified cursor (any, then trash); variations per changed variable product",
    sales: true,
    after: [],
    every: 0,
    run: (ctx, io) => syncProducts(ctx, io.outputs.products)
  },
  customers: {
    table: "store.customers",
    strategy: "new registrations newest first, customers of the orders the run wrote by id; a full scan by id with hash comparison every " +
      "SHOPSYNC_CUSTOMERS_FULL_SCAN_HOURS (no modified filter exists); deletions confirmed by 404",
    sales: true,
    after: [],
    every: 0,
    run: (ctx, io) => syncCustomers(ctx, io.ordersEnded)
  },
  reports: {
    table: "store.sales_report_daily",
    strategy: "/reports/sales per day, for the days the run changed",
    sales: true,
    after: SALES,
    every: 0,
    run: (ctx) => syncReports(ctx)
  },
  variations: {
    table: "store.product_variations",
    strategy: `per variable product, on a full pass each SHOPSYNC_CHILDREN_FULL_PASS_HOURS (changed products' variations come with products)`,
    sales: false,
    after: AFTER_SALES,
    every: CHILD,
    run: (ctx, io) => syncVariations(ctx, io.inputs.products)
  },
  order_notes: resource("order_notes", `per order, ${CHILDREN}`, CHILD, children("order_notes", liveParents.orders)),
  customer_downloads: resource("customer_downloads", `per customer (changed, or on a loaded order), ${CHILDREN}`, CHILD,
    children("customer_downloads", liveParents.customers)),
  tax_rates: resource("tax_rates", `${REFRESH}; a missing rate deleted on 404`, DAILY, whole("tax_rates")),
  tax_classes: resource("tax_classes", REFRESH, DAILY, whole("tax_classes")),
  product_reviews: resource("product_reviews", `${REFRESH} (status all, spam, trash); a missing review deleted on 404`, HOURLY, whole("product_reviews")),
  product_attributes: resource("product_attributes", REFRESH, DAILY, (ctx, io) => whole("product_attributes", io.outputs.product_attributes)(ctx, io)),
  attribute_terms: resource("attribute_terms", `per attribute, ${CHILDREN}`, CHILD, (ctx, io) =>
    children("attribute_terms", liveParents.resource("product_attributes", Effect.map(io.inputs.product_attributes, (a) => a.changed)))(ctx, io),
    [...AFTER_SALES, "product_attributes"]),
  product_categories: resource("product_categories", `${REFRESH}; a missing category deleted on 404`, DAILY, whole("product_categories")),
  shipping_classes: resource("shipping_classes", `${REFRESH}; a missing class deleted on 404`, DAILY, whole("shipping_classes")),
  shipping_zones: resource("shipping_zones", REFRESH, DAILY, (ctx, io) => whole("shipping_zones", io.outputs.shipping_zones)(ctx, io)),
  shipping_zone_methods: resource("shipping_zone_methods", `per zone, ${CHILDREN}`, CHILD, (ctx, io) =>
    children("shipping_zone_methods", liveParents.resource("shipping_zones", Effect.map(io.inputs.shipping_zones, (z) => z.changed)))(ctx, io),
    [...AFTER_SALES, "shipping_zones"]),
  settings: resource("settings", `${REFRESH}, every group`, DAILY, settings),
  reference_data: resource("reference_data", `${REFRESH} of /data, continents, countries, currencies, current`, DAILY,
    fixed("reference_data", ["index", "continents", "countries", "currencies", "current"])),
  system_status_tools: resource("system_status_tools", REFRESH, DAILY, whole("system_status_tools")),
  webhooks: resource("webhooks", `${REFRESH} (status all)`, HOURLY, whole("webhooks")),
  report_top_sellers: resource("report_top_sellers", `${REFRESH} per period (week, month, last_month, year)`, DAILY,
    fixed("report_top_sellers", ["week", "month", "last_month", "year"])),
  report_totals: resource("report_totals", `${REFRESH} of the five totals reports`, HOURLY,
    fixed("report_totals", ["coupons", "customers", "orders", "products", "reviews"])),
  // After the sales streams: the offsets are read from the orders they loaded.
  store_profile: {
    table: "store.stores",
    strategy: "the currency of /data/currencies/current (else of the latest order), the UTC offsets seen on orders",
    sales: false,
    after: AFTER_SALES,
    every: DAILY,
    run: (ctx) => storeProfile(ctx)
  }
}

/** The sales pipeline: what a backfill re-reads by default and the daily views are made of. */
export const SALES_STREAMS = STREAMS.filter((name) => CATALOGUE[name].sales)

/** State rows that belong to a stream without being one (its trash listing, its deletions check), or to none (table ""). */
export const STATE_ROWS: Readonly<Record<string, { readonly table: string; readonly strategy: string }>> = {
  "orders.trash": { table: "store.orders", strategy: "the trash listing of orders" },
  "products.trash": { table: "store.products", strategy: "the trash listing of products" },
  "orders.deletions": { table: "store.orders", strategy: "forced deletions of orders looked for every SHOPSYNC_DELETIONS_HOURS" },
  "products.deletions": { table: "store.products", strategy: "forced deletions of products looked for every SHOPSYNC_DELETIONS_HOURS" },
  "refunds.deletions": { table: "store.refunds", strategy: "deleted refunds looked for every SHOPSYNC_DELETIONS_HOURS" },
  reconciliation: { table: "", strategy: "ids and dates of orders, refunds, products and customers compared with the store every SHOPSYNC_VERIFY_HOURS" }
}
