-- analytics.daily_totals_current: every (store, store-local day, currency) with a counted order or refund,
-- with the sums of analytics.day_totals. Clean days are read from the stored sums (analytics.daily_totals,
-- migration 003); days a write has changed since (analytics.daily_dirty, noted by triggers) are computed now,
-- so it is exact at every moment, whether or not the last run stored its days. The daily views read it.
CREATE OR REPLACE VIEW analytics.daily_totals_current AS
SELECT t.store_id, t.day, t.currency, t.orders_count, t.gross_sales, t.discounts, t.shipping, t.tax, t.items, t.refunds_count, t.refunds
FROM analytics.daily_totals t
WHERE NOT EXISTS (SELECT 1 FROM analytics.daily_dirty d WHERE d.store_id = t.store_id AND d.day = t.day)
UNION ALL
SELECT d.store_id, d.day, x.currency, x.orders_count, x.gross_sales, x.discounts, x.shipping, x.tax, x.items, x.refunds_count, x.refunds
FROM (SELECT DISTINCT store_id, day FROM analytics.daily_dirty) d
CROSS JOIN LATERAL analytics.day_totals(d.store_id, d.day) x;

COMMENT ON VIEW analytics.daily_totals_current IS
  'Every (store, store-local day, currency) with a counted order or refund and its sums: stored days from analytics.daily_totals, days written since computed now (exact at every moment). The daily views read it.';
COMMENT ON COLUMN analytics.daily_totals_current.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN analytics.daily_totals_current.day IS 'The store-local calendar day: orders by creation, refunds by their own date, in the store''s timezone as the API''s non-GMT dates give it (its UTC offsets: analytics.stores.utc_offsets).';
COMMENT ON COLUMN analytics.daily_totals_current.currency IS 'The orders'' currency, ISO 4217 (API order `currency`): the money columns of the row are in it.';
COMMENT ON COLUMN analytics.daily_totals_current.orders_count IS 'Counted orders created that day (status processing, completed, on-hold or refunded, not deleted).';
COMMENT ON COLUMN analytics.daily_totals_current.gross_sales IS 'Sum of the `total` of those orders: what customers paid, tax, shipping and fees included, after discounts (not the store''s own net sales, which leave tax and shipping out); numeric.';
COMMENT ON COLUMN analytics.daily_totals_current.discounts IS 'Sum of those orders'' discount_total (coupons, excluding tax); numeric.';
COMMENT ON COLUMN analytics.daily_totals_current.shipping IS 'Sum of those orders'' shipping_total (excluding tax); numeric.';
COMMENT ON COLUMN analytics.daily_totals_current.tax IS 'Sum of those orders'' total_tax (every tax, shipping''s included); numeric.';
COMMENT ON COLUMN analytics.daily_totals_current.items IS 'Units sold: the sum of the quantities of those orders'' lines.';
COMMENT ON COLUMN analytics.daily_totals_current.refunds_count IS 'Counted refunds made that day.';
COMMENT ON COLUMN analytics.daily_totals_current.refunds IS 'Sum of the `amount` of the counted refunds made that day (each on its own day, not its order''s); numeric.';
