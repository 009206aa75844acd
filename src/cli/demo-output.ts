import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import { formatTable } from "../jobs/table.js"
import type { RunSummary } from "../sync/errors.js"

/** What the demo prints: a few lines a newcomer reads top to bottom, results on stdout. */
export const say = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

const fmt = (n: number) => n.toLocaleString("en-US")

const SALES = ["orders", "refunds", "customers", "products"]

/** The run in one line: its rows by resource (the sales resources named), requests and time. */
export const syncLine = (summary: RunSummary): string => {
  const rows = (names: ReadonlyArray<string>) => summary.streams.filter((s) => names.includes(s.stream)).reduce((n, s) => n + s.rows, 0)
  const others = summary.streams.filter((s) => !SALES.includes(s.stream))
  const named = SALES.map((name) => `${fmt(rows([name]))} ${name}`).join(", ")
  return `synced ${named} and ${fmt(rows(others.map((s) => s.stream)))} rows of ${others.length} other resources ` +
    `in ${summary.seconds.toFixed(1)} s (${fmt(summary.requests)} requests)`
}

export const NetSalesRow = Schema.Struct({
  day: Schema.String,
  currency: Schema.String,
  orders_count: Schema.Number,
  gross_sales: Schema.String,
  refunds: Schema.String,
  net_sales: Schema.String
})
export type NetSalesRow = typeof NetSalesRow.Type

const COLUMNS = ["day", "currency", "orders_count", "gross_sales", "refunds", "net_sales"]

/** The money columns to the cent, as a consumer reads them. */
const money = (column: string) => `to_char(${column}, 'FM999999999990.00')`

/** analytics.daily_net_sales of a store, every row. */
export const dailyNetSalesTable = (storeId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT day::text AS day, currency, orders_count, ${sql.unsafe(money("gross_sales"))} AS gross_sales,
               ${sql.unsafe(money("refunds"))} AS refunds, ${sql.unsafe(money("net_sales"))} AS net_sales
        FROM analytics.daily_net_sales WHERE store_id = ${storeId} ORDER BY day, currency`).pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.Array(NetSalesRow))),
    Effect.orDie
  )

/** The store's totals per currency over every day, summed by PostgreSQL (numeric: exact). */
const totalsByCurrency = (storeId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 'total' AS day, currency, sum(orders_count)::int AS orders_count, ${sql.unsafe(money("sum(gross_sales)"))} AS gross_sales,
               ${sql.unsafe(money("sum(refunds)"))} AS refunds, ${sql.unsafe(money("sum(net_sales)"))} AS net_sales
        FROM analytics.daily_net_sales WHERE store_id = ${storeId} GROUP BY currency ORDER BY currency`).pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.Array(NetSalesRow))),
    Effect.orDie
  )

/** Rows of the first and the last days shown (each day has a row per currency). */
const EDGE_DAYS = 2

/**
 * The table compact: its first and last EDGE_DAYS days, a line for what lies between, the totals per currency, and
 * the query that shows every row.
 */
export const netSalesText = (storeId: string, table: ReadonlyArray<NetSalesRow>) =>
  Effect.map(totalsByCurrency(storeId), (totals) => {
    const days = [...new Set(table.map((r) => r.day))]
    const shown = new Set([...days.slice(0, EDGE_DAYS), ...days.slice(-EDGE_DAYS)])
    const head = table.filter((r) => shown.has(r.day) && days.indexOf(r.day) < EDGE_DAYS)
    const tail = table.filter((r) => shown.has(r.day) && days.indexOf(r.day) >= EDGE_DAYS)
    const hidden = table.length - head.length - tail.length
    const lines = formatTable([...head, ...tail, ...totals], COLUMNS).split("\n")
    // A rule above the totals, as wide as the one under the header; what is left out, between the first and last days.
    lines.splice(lines.length - totals.length, 0, lines[1]!)
    if (hidden > 0) lines.splice(2 + head.length, 0, `…  ${fmt(hidden)} more rows`)
    return `analytics.daily_net_sales, store ${storeId}: ${fmt(table.length)} rows (day, currency) from ${days[0]} to ${days.at(-1)}\n` +
      `${lines.join("\n")}\n` +
      `every row: npx shopsync warehouse psql, then SELECT * FROM analytics.daily_net_sales WHERE store_id = '${storeId}' ORDER BY day;`
  })
