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

-- Its comments: sql/models/catalogue.json (one text per shared column), applied by migrate after the models.
