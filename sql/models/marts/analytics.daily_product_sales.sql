-- analytics.daily_product_sales: per store, store-local day, currency, product and variation, the units sold and
-- refunded and their money, by the day rule of the daily marts (analytics.sales_days, migration 019): an order's
-- lines count on the order's created_day (counted orders only), a refund's lines on the refund's own day (counted
-- refunds only). Money is the lines' `total` (after discounts, tax excluded) in the order's currency; refund lines,
-- which the API gives negative, are made positive. A refund of an amount alone (no lines) names no product: it
-- counts in analytics.daily_net_sales only. Product names are the warehouse's current ones (store.products).
CREATE OR REPLACE VIEW analytics.daily_product_sales AS
WITH sold AS (
  SELECT o.store_id, o.created_day AS day, o.currency, coalesce(li.product_id, 0) AS product_id,
         coalesce(li.variation_id, 0) AS variation_id,
         count(DISTINCT o.id)::integer AS orders_count, sum(li.quantity) AS quantity, sum(li.total) AS gross
  FROM analytics.counted_orders o
  JOIN store.order_line_items li ON li.store_id = o.store_id AND li.order_id = o.id
  GROUP BY 1, 2, 3, 4, 5
), refunded AS (
  SELECT r.store_id, r.created_day AS day, r.currency, coalesce(rl.product_id, 0) AS product_id,
         coalesce(rl.variation_id, 0) AS variation_id,
         -sum(rl.quantity) AS refunded_quantity, -sum(rl.total) AS refunded
  FROM analytics.counted_refunds r
  JOIN store.refund_line_items rl ON rl.store_id = r.store_id AND rl.refund_id = r.id
  GROUP BY 1, 2, 3, 4, 5
), joined AS (
  SELECT store_id, day, currency, product_id, variation_id, s.orders_count, s.quantity, s.gross, r.refunded_quantity, r.refunded
  FROM sold s
  FULL JOIN refunded r USING (store_id, day, currency, product_id, variation_id)
)
SELECT j.store_id,
       j.day,
       j.currency,
       j.product_id,
       j.variation_id,
       p.name AS product_name,
       coalesce(j.orders_count, 0) AS orders_count,
       coalesce(j.quantity, 0)::numeric AS quantity,
       coalesce(j.gross, 0)::numeric AS gross,
       coalesce(j.refunded_quantity, 0)::numeric AS refunded_quantity,
       coalesce(j.refunded, 0)::numeric AS refunded,
       (coalesce(j.gross, 0) - coalesce(j.refunded, 0))::numeric AS net
FROM joined j
LEFT JOIN store.products p ON p.store_id = j.store_id AND p.id = j.product_id;

-- Its comments: sql/models/catalogue.json, applied by migrate after the models.
