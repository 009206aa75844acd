-- analytics.customers_ltv and analytics.customer_cohorts each count every counted order that has a customer or a
-- billing email once: per store and currency, their orders and money equal those of the counted orders, restated
-- here from analytics.counted_orders and store.refunds rather than read from analytics.customer_orders. Returns
-- the (store, currency) pairs that disagree.
WITH owned AS (
  SELECT o.store_id, o.currency, count(*) AS orders, sum(o.total) AS gross,
         coalesce(sum((SELECT sum(r.amount) FROM store.refunds r
                       WHERE r.store_id = o.store_id AND r.order_id = o.id AND r.deleted_at IS NULL)), 0) AS refunds
  FROM analytics.counted_orders o
  WHERE o.customer_id <> 0 OR nullif(btrim(o.billing_email), '') IS NOT NULL
  GROUP BY o.store_id, o.currency
), ltv AS (
  SELECT store_id, currency, sum(orders_count) AS orders, sum(gross_revenue) AS gross, sum(refunds) AS refunds
  FROM analytics.customers_ltv GROUP BY store_id, currency
), cohorts AS (
  SELECT store_id, currency, sum(orders_count) AS orders, sum(gross_revenue) AS gross, sum(refunds) AS refunds
  FROM analytics.customer_cohorts GROUP BY store_id, currency
)
SELECT store_id, currency, o.orders, o.gross, o.refunds,
       l.orders AS ltv_orders, l.gross AS ltv_gross, l.refunds AS ltv_refunds,
       c.orders AS cohort_orders, c.gross AS cohort_gross, c.refunds AS cohort_refunds
FROM owned o
FULL JOIN ltv l USING (store_id, currency)
FULL JOIN cohorts c USING (store_id, currency)
WHERE (o.orders, o.gross, o.refunds) IS DISTINCT FROM (l.orders, l.gross, l.refunds)
   OR (o.orders, o.gross, o.refunds) IS DISTINCT FROM (c.orders, c.gross, c.refunds)
