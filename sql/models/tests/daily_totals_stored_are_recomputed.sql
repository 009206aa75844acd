-- The sums analytics.refresh_daily_totals stored (analytics.daily_totals) for the days no write has changed since
-- (not in analytics.daily_dirty) are those analytics.day_totals computes from the tables now: the triggers noted
-- every day a write changed. Returns the stored rows that differ.
SELECT t.*, x AS computed
FROM analytics.daily_totals t
LEFT JOIN LATERAL analytics.day_totals(t.store_id, t.day) x ON x.currency = t.currency
WHERE NOT EXISTS (SELECT 1 FROM analytics.daily_dirty d WHERE d.store_id = t.store_id AND d.day = t.day)
  AND (x IS NULL
       OR (t.orders_count, t.gross_sales, t.discounts, t.shipping, t.tax, t.items, t.refunds_count, t.refunds)
          IS DISTINCT FROM (x.orders_count, x.gross_sales, x.discounts, x.shipping, x.tax, x.items, x.refunds_count, x.refunds))
