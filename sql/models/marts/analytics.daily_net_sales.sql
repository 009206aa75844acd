-- analytics.daily_net_sales: the warehouse's headline figure, one row per (store, store-local day, currency)
-- with a counted order or refund. gross_sales sums the order `total` (which includes tax and shipping) of the
-- counted orders created that day; refunds sums the amounts of the counted refunds made that day (each on its
-- own day, not its order's); net_sales = gross_sales - refunds. Read from analytics.daily_totals_current, so it
-- answers from about one row per day. Its columns are a contract (test/e2e/migrate.test.ts checks them).
CREATE OR REPLACE VIEW analytics.daily_net_sales AS
SELECT store_id, day, currency, orders_count, gross_sales, refunds, (gross_sales - refunds)::numeric AS net_sales
FROM analytics.daily_totals_current;

COMMENT ON VIEW analytics.daily_net_sales IS
  'Per-day net sales: one row per store, store-local day and currency with a counted order or refund. gross_sales sums the order totals (tax and shipping included) of the counted orders created that day, refunds the counted refunds made that day; net_sales = gross_sales - refunds. Money is numeric in `currency`; `day` is in the store''s timezone (analytics.stores).';
COMMENT ON COLUMN analytics.daily_net_sales.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN analytics.daily_net_sales.day IS 'The store-local calendar day: orders by creation, refunds by their own date, in the store''s timezone as the API''s non-GMT dates give it (its UTC offsets: analytics.stores.utc_offsets).';
COMMENT ON COLUMN analytics.daily_net_sales.currency IS 'The orders'' currency, ISO 4217 (API order `currency`): the money columns of the row are in it.';
COMMENT ON COLUMN analytics.daily_net_sales.orders_count IS 'Counted orders created that day (status processing, completed, on-hold or refunded, not deleted).';
COMMENT ON COLUMN analytics.daily_net_sales.gross_sales IS 'Sum of the `total` of those orders: what customers paid, tax, shipping and fees included, after discounts (not the store''s own net sales, which leave tax and shipping out); numeric.';
COMMENT ON COLUMN analytics.daily_net_sales.refunds IS 'Sum of the `amount` of the counted refunds made that day (each on its own day, not its order''s); numeric.';
COMMENT ON COLUMN analytics.daily_net_sales.net_sales IS 'gross_sales minus refunds; numeric.';
