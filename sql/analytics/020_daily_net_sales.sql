-- Per-day net sales: one row per (store, local day, currency) with a sale or a refund.
-- gross_sales = sum of order totals on the order's local creation day;
-- refunds = sum of refund amounts on each refund's own local day; net = gross - refunds.
CREATE OR REPLACE VIEW analytics.daily_net_sales AS
WITH sales AS (
  SELECT store_id, created_day AS day, currency, count(*)::integer AS orders_count, sum(total) AS gross_sales
  FROM analytics.counted_orders
  GROUP BY store_id, created_day, currency
), refunds AS (
  SELECT store_id, created_day AS day, currency, sum(amount) AS refunds
  FROM analytics.counted_refunds
  GROUP BY store_id, created_day, currency
)
SELECT
  store_id,
  day,
  currency,
  coalesce(s.orders_count, 0)                              AS orders_count,
  coalesce(s.gross_sales, 0)::numeric                      AS gross_sales,
  coalesce(r.refunds, 0)::numeric                          AS refunds,
  (coalesce(s.gross_sales, 0) - coalesce(r.refunds, 0))::numeric AS net_sales
FROM sales s
FULL JOIN refunds r USING (store_id, day, currency);

COMMENT ON VIEW analytics.daily_net_sales IS
  'Per-day net sales: gross_sales (counted orders by local creation day) minus refunds (by each refund''s own local day), per currency.';
