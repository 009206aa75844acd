import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import { type ChartRequest, isChosen, resolveRange } from "./chart-range.js"

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
  /** Whether the URL chose the window; else it ends at the latest day with sales. */
  readonly chosen: boolean
  readonly currencies: ReadonlyArray<CurrencySales>
  /** The latest day the warehouse has sales for, at any time (null: none yet). */
  readonly latestDay: string | null
}

const Latest = Schema.Struct({ latest: Schema.NullOr(Schema.String), today: Schema.String })
const Total = Schema.Struct({ currency: Schema.String, total: Schema.String, orders: Schema.Number })

/**
 * analytics.daily_net_sales per currency over the days `request` asks for (see chart-range.ts), with each currency's
 * total. The days are validated values, passed as parameters.
 */
export const salesWindow = (storeId: string, request: ChartRequest) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [found] = yield* sql`
      SELECT max(day)::text AS latest, current_date::text AS today
      FROM analytics.daily_net_sales WHERE store_id = ${storeId}`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Latest))))
    const { first, last } = resolveRange(request, found!.latest ?? found!.today)
    const days = yield* sql`
      SELECT day::text AS day, currency, orders_count, net_sales::text AS net_sales
      FROM analytics.daily_net_sales WHERE store_id = ${storeId} AND day BETWEEN ${first}::date AND ${last}::date
      ORDER BY currency, day`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(SalesDay))))
    const totals = yield* sql`
      SELECT currency, sum(net_sales)::text AS total, sum(orders_count)::int AS orders
      FROM analytics.daily_net_sales WHERE store_id = ${storeId} AND day BETWEEN ${first}::date AND ${last}::date
      GROUP BY currency ORDER BY currency`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Total))))
    return {
      first,
      last,
      chosen: isChosen(request),
      latestDay: found!.latest,
      currencies: totals.map((t): CurrencySales => ({ ...t, days: days.filter((d) => d.currency === t.currency) }))
    } satisfies SalesWindow
  }).pipe(Effect.catchTag("ParseError", Effect.die))
