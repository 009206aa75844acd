import { Schema } from "effect"

/**
 * The fields of each resource that the pipeline relies on. Documents are checked against these
 * and then stored whole (the warehouse keeps every field as jsonb), so extra fields pass through.
 */

/** The API's wall-clock date-time without offset, whole seconds: `2026-03-08T02:30:00`. */
export const NaiveDateTime = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, { message: () => "a date-time like 2026-03-08T02:30:00" })
)

/** Money as the API's decimal string; never parsed into a float. */
export const Money = Schema.String.pipe(
  Schema.pattern(/^-?\d+(\.\d+)?$/, { message: () => "a decimal string such as \"12.30\"" })
)

const Id = Schema.Int.pipe(Schema.positive())

const Billing = Schema.Struct({ email: Schema.optional(Schema.NullOr(Schema.String)) })

export const Order = Schema.Struct({
  id: Id,
  status: Schema.String,
  currency: Schema.String,
  total: Money,
  customer_id: Schema.Int,
  date_created: NaiveDateTime,
  date_created_gmt: NaiveDateTime,
  date_modified_gmt: NaiveDateTime,
  billing: Schema.optional(Billing),
  line_items: Schema.Array(Schema.Struct({ id: Id, quantity: Schema.Number }))
})
export type Order = typeof Order.Type

export const Refund = Schema.Struct({
  id: Id,
  parent_id: Schema.optional(Schema.Int),
  amount: Money,
  date_created: NaiveDateTime,
  date_created_gmt: NaiveDateTime
})
export type Refund = typeof Refund.Type

export const Customer = Schema.Struct({ id: Id, email: Schema.String })
export type Customer = typeof Customer.Type

export const Product = Schema.Struct({
  id: Id,
  type: Schema.String,
  date_created_gmt: NaiveDateTime,
  date_modified_gmt: NaiveDateTime
})
export type Product = typeof Product.Type

export const Variation = Schema.Struct({ id: Id })

/** One day of /reports/sales `totals`. */
export const SalesReportDay = Schema.Struct({
  sales: Money,
  orders: Schema.Number,
  items: Schema.Number,
  tax: Money,
  shipping: Money,
  discount: Schema.Union(Money, Schema.Number),
  customers: Schema.Number,
  refunds: Schema.optional(Schema.Union(Money, Schema.Number))
})

export const SalesReport = Schema.Tuple(
  Schema.Struct({
    totals_grouped_by: Schema.String,
    totals: Schema.Record({ key: Schema.String, value: SalesReportDay })
  })
)

/** The other resources (seed parts 1 and 2): what names a document within its list, the rest kept as sent. */
export const WithId = Schema.Struct({ id: Schema.Int })
export const WithStringId = Schema.Struct({ id: Schema.String.pipe(Schema.minLength(1)) })
export const WithSlug = Schema.Struct({ slug: Schema.String.pipe(Schema.minLength(1)) })
export const ReferenceEntry = Schema.Union(Schema.Struct({ code: Schema.String }), Schema.Struct({ slug: Schema.String }))
export const ZoneMethod = Schema.Struct({ instance_id: Schema.Int, method_id: Schema.String })
export const Download = Schema.Struct({ download_id: Schema.String, order_id: Schema.Int, product_id: Schema.Int })
export const TopSeller = Schema.Struct({ product_id: Schema.Int, quantity: Schema.Number })
export const SettingGroup = Schema.Struct({ id: Schema.String })
