import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"

/** The days the status page charts: the 90 ending today, by the warehouse's date. */
export const CHART_DAYS = 90

/** One day of analytics.daily_net_sales for one currency; money as PostgreSQL's numeric text. */
export const SalesDay = Schema.Struct({
  day: Schema.String,
  currency: Schema.String,
  orders_count: Schema.Number,
  net_sales: Schema.String
})
export type SalesDay = typeof SalesDay.Type

export interface CurrencySales {
  readonly currency: string
  /** The days with a row (a counted order or refund), in order. */
  readonly days: ReadonlyArray<SalesDay>
  /** Σ net_sales over the window, summed by PostgreSQL. */
  readonly total: string
  readonly orders: number
}

export interface SalesWindow {
  /** First and last day of the window (YYYY-MM-DD). */
  readonly first: string
  readonly last: string
  readonly currencies: ReadonlyArray<CurrencySales>
  /** The latest day the warehouse has sales for, at any time (null: none yet). */
  readonly latestDay: string | null
}

const Bounds = Schema.Struct({ first: Schema.String, last: Schema.String, latest: Schema.NullOr(Schema.String) })
const Total = Schema.Struct({ currency: Schema.String, total: Schema.String, orders: Schema.Number })

/** The last CHART_DAYS days of analytics.daily_net_sales per currency, with each currency's total. */
export const salesWindow = (storeId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [bounds] = yield* sql`
      SELECT (current_date - ${CHART_DAYS - 1}::int)::text AS first, current_date::text AS last,
             (SELECT max(day)::text FROM analytics.daily_net_sales WHERE store_id = ${storeId}) AS latest`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Bounds))))
    const days = yield* sql`
      SELECT day::text AS day, currency, orders_count, net_sales::text AS net_sales
      FROM analytics.daily_net_sales WHERE store_id = ${storeId} AND day >= ${bounds!.first}::date
      ORDER BY currency, day`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(SalesDay))))
    const totals = yield* sql`
      SELECT currency, sum(net_sales)::text AS total, sum(orders_count)::int AS orders
      FROM analytics.daily_net_sales WHERE store_id = ${storeId} AND day >= ${bounds!.first}::date
      GROUP BY currency ORDER BY currency`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Total))))
    const last = bounds!.latest !== null && bounds!.latest > bounds!.last ? bounds!.latest : bounds!.last
    return {
      first: bounds!.first,
      last,
      latestDay: bounds!.latest,
      currencies: totals.map((t): CurrencySales => ({ ...t, days: days.filter((d) => d.currency === t.currency) }))
    } satisfies SalesWindow
  }).pipe(Effect.catchTag("ParseError", Effect.die))
