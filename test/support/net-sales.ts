/** Runs a query on the warehouse (the harness's `rows`, or a benchmark's client). */
export type Rows = <T>(text: string, params?: unknown[]) => Promise<T[]>

/** analytics.daily_net_sales of one store, money as text with two decimals (as expectedNetSales writes it). */
export const netSalesOf = (rows: Rows, storeId: string) =>
  rows<Record<string, string | number>>(
    `SELECT day::text AS day, currency, orders_count, to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
            to_char(refunds, 'FM999999999990.00') AS refunds, to_char(net_sales, 'FM999999999990.00') AS net_sales
     FROM analytics.daily_net_sales WHERE store_id = $1 ORDER BY day, currency`,
    [storeId]
  )
