-- analytics.customers_ltv: each customer's lifetime value, one row per store, customer and currency (a customer who
-- paid in two currencies has two rows; money is never summed across currencies). A customer is as
-- analytics.customer_orders says: a registered customer by id (with the guest orders billed to their email), else a
-- guest by billing email. gross_revenue sums the counted orders' totals (tax and shipping included), refunds their
-- counted refunds whenever made, net_revenue the difference; first and last order days are store-local.
CREATE OR REPLACE VIEW analytics.customers_ltv AS
WITH orders AS NOT MATERIALIZED (
  SELECT * FROM analytics.customer_orders
), totals AS (
  SELECT store_id, customer_key, currency,
         count(*)::integer AS orders_count,
         sum(total) AS gross_revenue,
         sum(refunds) AS refunds,
         min(created_day) AS first_order_day,
         max(created_day) AS last_order_day
  FROM orders
  GROUP BY store_id, customer_key, currency
), latest AS (
  SELECT DISTINCT ON (store_id, customer_key) store_id, customer_key, customer_id, email
  FROM orders
  ORDER BY store_id, customer_key, date_created DESC, order_id DESC
)
SELECT t.store_id,
       t.customer_key,
       l.customer_id,
       coalesce(lower(nullif(btrim(c.email), '')), l.email) AS email,
       l.customer_id IS NOT NULL AS is_registered,
       t.currency,
       t.orders_count,
       t.gross_revenue::numeric AS gross_revenue,
       t.refunds::numeric AS refunds,
       (t.gross_revenue - t.refunds)::numeric AS net_revenue,
       t.first_order_day,
       t.last_order_day
FROM totals t
JOIN latest l ON l.store_id = t.store_id AND l.customer_key = t.customer_key
LEFT JOIN store.customers c ON c.store_id = l.store_id AND c.id = l.customer_id AND c.deleted_at IS NULL;

-- Its comments: sql/models/catalogue.json, applied by migrate after the models.
