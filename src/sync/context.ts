import type { Effect } from "effect"

/** The sales pipeline: what a backfill re-reads by default and the daily views are made of. */
export const CORE_STREAMS = ["orders", "refunds", "products", "customers", "reports"] as const

/** The store's other readable resources (sync/resources), kept by full refreshes of their lists. */
export const RESOURCE_STREAMS = [
  "order_notes", "customer_downloads", "tax_rates", "tax_classes", "product_reviews", "product_attributes", "attribute_terms",
  "product_categories", "shipping_classes", "shipping_zones", "shipping_zone_methods", "settings", "reference_data",
  "system_status_tools", "webhooks", "report_top_sellers", "report_totals"
] as const
export type ResourceStreamName = (typeof RESOURCE_STREAMS)[number]

/** The streams a run can take, in the order they are reported. */
export const STREAMS = [...CORE_STREAMS, ...RESOURCE_STREAMS] as const
export type StreamName = (typeof STREAMS)[number]

const CHILDREN = "for the parents that changed this run, and every parent on a full pass each SHOPSYNC_CHILDREN_FULL_PASS_HOURS"
const REFRESH = "full refresh with change detection"

/** How each stream reads the store: what `status` shows beside it (sync.state names trash listings `<stream>.trash`). */
export const STRATEGIES: Record<StreamName, string> = {
  orders: "modified cursor (status any, then trash); forced deletions by count comparison",
  refunds: "created cursor on store-wide /refunds, deletions by count comparison (else per order: changed, differing, full pass)",
  products: "modified cursor (any, then trash); variations per changed variable product, all on a full pass",
  customers: "full scan by id with hash comparison (no modified filter exists); deletions confirmed by 404",
  reports: "/reports/sales per day, for the days the run changed",
  order_notes: `per order, ${CHILDREN}`,
  customer_downloads: `per customer (changed, or on a loaded order), ${CHILDREN}`,
  tax_rates: `${REFRESH}; a missing rate deleted on 404`,
  tax_classes: REFRESH,
  product_reviews: `${REFRESH} (status all, spam, trash); a missing review deleted on 404`,
  product_attributes: REFRESH,
  attribute_terms: `per attribute, ${CHILDREN}`,
  product_categories: `${REFRESH}; a missing category deleted on 404`,
  shipping_classes: `${REFRESH}; a missing class deleted on 404`,
  shipping_zones: REFRESH,
  shipping_zone_methods: `per zone, ${CHILDREN}`,
  settings: `${REFRESH}, every group`,
  reference_data: `${REFRESH} of /data, continents, countries, currencies, current`,
  system_status_tools: REFRESH,
  webhooks: `${REFRESH} (status all)`,
  report_top_sellers: `${REFRESH} per period (week, month, last_month, year)`,
  report_totals: `${REFRESH} of the five totals reports`
}

export type RunMode =
  | { readonly kind: "sync" }
  /** Re-reads what was created in [since, until] (store-local days), without moving incremental cursors. */
  | { readonly kind: "backfill"; readonly since: string; readonly until: string }

export interface ProgressSink {
  readonly page: (stream: string, rows: number, total: number) => Effect.Effect<void>
}

/** What one run shares between its streams. Holds ids and days, never documents. */
export interface RunContext {
  readonly storeId: string
  readonly runId: number
  readonly mode: RunMode
  /** Exclusive upper bound of this run (epoch second of the store's clock minus the settle time). */
  readonly upper: number
  readonly progress: ProgressSink
  /** Orders loaded by this run (refunds fall back to per-order lists for these, among others). */
  readonly changedOrders: Set<number>
  /** Registered customers seen on orders loaded by this run. */
  readonly orderCustomers: Set<number>
  /** Customers whose document the customers stream found new or changed. */
  readonly changedCustomers: Set<number>
  /** Keys a resource stream found new or changed, for the children that follow it. */
  readonly resourceChanges: Map<ResourceStreamName, ReadonlyArray<string>>
  /** Completes when the orders stream has ended (or did not run): the two sets above are then whole. */
  readonly ordersDone: Effect.Effect<void>
}
