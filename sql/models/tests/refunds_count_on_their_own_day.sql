-- Each counted refund counts on its own store-local day, not its order's: per (store, day, currency) the refunds
-- of analytics.daily_sales are those of the refunds in the store tables made that day (of an order with a counted
-- status, neither deleted), restated here from the tables rather than read from the models. Returns the days
-- that disagree.
WITH own_day AS (
  SELECT r.store_id, r.created_day AS day, o.currency, count(*)::integer AS refunds_count, sum(r.amount) AS refunds
  FROM store.refunds r
  JOIN store.orders o ON o.store_id = r.store_id AND o.id = r.order_id
  WHERE r.deleted_at IS NULL AND o.deleted_at IS NULL AND o.status IN ('processing', 'completed', 'on-hold', 'refunded')
  GROUP BY r.store_id, r.created_day, o.currency
)
SELECT store_id, day, currency, s.refunds_count, s.refunds, r.refunds_count AS expected_count, r.refunds AS expected
FROM (SELECT * FROM analytics.daily_sales WHERE refunds_count > 0) s
FULL JOIN own_day r USING (store_id, day, currency)
WHERE (s.refunds_count, s.refunds) IS DISTINCT FROM (r.refunds_count, r.refunds)
