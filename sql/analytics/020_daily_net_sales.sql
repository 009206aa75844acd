-- Per-day net sales: one row per (store, local day, currency) with a sale or a refund.
-- gross_sales = sum of order totals on the order's local creation day;
-- refunds = sum of refund amounts on each refund's own local day; net = gross - refunds.
-- Read from the maintained daily sums (015_daily_totals.sql), so it answers from about one row per day.
CREATE OR REPLACE VIEW analytics.daily_net_sales AS
SELECT store_id, day, currency, orders_count, gross_sales, refunds, (gross_sales - refunds)::numeric AS net_sales
FROM analytics.daily_totals_current;

COMMENT ON VIEW analytics.daily_net_sales IS
  'Per-day net sales: gross_sales (counted orders by local creation day) minus refunds (by each refund''s own local day), per currency.';
