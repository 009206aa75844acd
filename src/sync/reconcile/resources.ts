import { Customer, Order, Product, Refund } from "../../store-client/schemas.js"
import type { StampedTable } from "../../warehouse/live-rows.js"
import type { LoadKind } from "../../warehouse/loader.js"
import { type Screened, screener } from "../../warehouse/screen.js"
import type { ListingSpec } from "./listing.js"

/** The resources a reconciliation compares, in the order it reports them. */
export const RESOURCES = ["orders", "refunds", "products", "customers"] as const
export type ResourceName = (typeof RESOURCES)[number]

/** How one resource is listed, compared, read again and confirmed gone. */
export interface ResourceSpec {
  readonly name: ResourceName
  readonly path: string
  readonly table: StampedTable
  readonly kind: LoadKind
  /** Checks documents read again against the resource's schema, as a sync's pages are (misfits are quarantined). */
  readonly screen: (items: ReadonlyArray<unknown>, clean: boolean) => Screened<{ readonly id: number }>
  /** Every listing that together holds every row the store still has (`status=any` leaves trash out). */
  readonly listings: ReadonlyArray<ListingSpec>
  /** Compare dates (and trash), not only ids: refunds never change once created. */
  readonly dates: boolean
  /**
   * Whether a row no listing has must be confirmed gone by its own GET (404): a refund has no GET of its own on
   * the store-wide route, and one missing from a complete listing was deleted.
   */
  readonly confirmGone: boolean
}

const anyAndTrash = (path: string): ReadonlyArray<ListingSpec> => [
  { path, params: { status: "any" }, stamp: "date_modified_gmt", trash: false },
  { path, params: { status: "trash" }, stamp: "date_modified_gmt", trash: true }
]

export const SPECS: Readonly<Record<ResourceName, ResourceSpec>> = {
  orders: { name: "orders", path: "/orders", table: "orders", kind: "orders", screen: screener("orders", Order), listings: anyAndTrash("/orders"), dates: true, confirmGone: true },
  refunds: {
    name: "refunds",
    path: "/refunds",
    table: "refunds",
    kind: "refunds",
    screen: screener("refunds", Refund),
    listings: [{ path: "/refunds", params: {}, stamp: "date_created_gmt", trash: false }],
    dates: false,
    confirmGone: false
  },
  products: {
    name: "products", path: "/products", table: "products", kind: "products", screen: screener("products", Product), listings: anyAndTrash("/products"), dates: true, confirmGone: true
  },
  customers: {
    name: "customers",
    path: "/customers",
    table: "customers",
    kind: "customers",
    screen: screener("customers", Customer),
    // Every role: the default lists only `customer`. Customers have no modified filter, but their date is listed.
    listings: [{ path: "/customers", params: { role: "all" }, stamp: "date_modified_gmt", trash: false }],
    dates: true,
    confirmGone: true
  }
}
