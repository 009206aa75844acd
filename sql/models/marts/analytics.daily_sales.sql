-- analytics.daily_sales: analytics.daily_net_sales with the detail a finance reader asks for next. items,
-- discounts, shipping and tax are those of the day's counted orders (items sums their lines' quantities);
-- refunds_count counts the day's counted refunds. gross_sales and net_sales are daily_net_sales's.
CREATE OR REPLACE VIEW analytics.daily_sales AS
SELECT store_id, day, currency, orders_count, items, gross_sales, discounts, shipping, tax, refunds_count, refunds,
       (gross_sales - refunds)::numeric AS net_sales
FROM analytics.daily_totals_current;

COMMENT ON VIEW analytics.daily_sales IS
  'analytics.daily_net_sales with items, discounts, shipping, tax and refunds_count: one row per store, store-local day and currency with a counted order or refund. Money is numeric in `currency`.';
COMMENT ON COLUMN analytics.daily_sales.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN analytics.daily_sales.day IS 'The store-local calendar day: orders by creation, refunds by their own date, in the store''s timezone as the API''s non-GMT dates give it (its UTC offsets: analytics.stores.utc_offsets).';
COMMENT ON COLUMN analytics.daily_sales.currency IS 'The orders'' currency, ISO 4217 (API order `currency`): the money columns of the row are in it.';
COMMENT ON COLUMN analytics.daily_sales.orders_count IS 'Counted orders created that day (status processing, completed, on-hold or refunded, not deleted).';
COMMENT ON COLUMN analytics.daily_sales.items IS 'Units sold: the sum of the quantities of those orders'' lines.';
COMMENT ON COLUMN analytics.daily_sales.gross_sales IS 'Sum of the `total` of those orders: what customers paid, tax, shipping and fees included, after discounts (not the store''s own net sales, which leave tax and shipping out); numeric.';
COMMENT ON COLUMN analytics.daily_sales.discounts IS 'Sum of those orders'' discount_total (coupons, excluding tax); numeric.';
COMMENT ON COLUMN analytics.daily_sales.shipping IS 'Sum of those orders'' shipping_total (excluding tax); numeric.';
COMMENT ON COLUMN analytics.daily_sales.tax IS 'Sum of those orders'' total_tax (every tax, shipping''s included); numeric.';
COMMENT ON COLUMN analytics.daily_sales.refunds_count IS 'Counted refunds made that day.';
COMMENT ON COLUMN analytics.daily_sales.refunds IS 'Sum of the `amount` of the counted refunds made that day (each on its own day, not its order''s); numeric.';
COMMENT ON COLUMN analytics.daily_sales.net_sales IS 'gross_sales minus refunds; numeric.';
