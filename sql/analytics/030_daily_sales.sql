-- The daily net sales with the detail a finance reader asks for next.
-- items, discounts, shipping and tax are those of the day's counted orders; refunds_count the day's refunds.
CREATE OR REPLACE VIEW analytics.daily_sales AS
WITH orders AS (
  SELECT store_id, created_day AS day, currency,
         count(*)::integer   AS orders_count,
         sum(total)          AS gross_sales,
         sum(discount_total) AS discounts,
         sum(shipping_total) AS shipping,
         sum(total_tax)      AS tax
  FROM analytics.counted_orders
  GROUP BY store_id, created_day, currency
), items AS (
  SELECT o.store_id, o.created_day AS day, o.currency, sum(li.quantity) AS items
  FROM analytics.counted_orders o
  JOIN store.order_line_items li ON li.store_id = o.store_id AND li.order_id = o.id
  GROUP BY o.store_id, o.created_day, o.currency
), refunds AS (
  SELECT store_id, created_day AS day, currency, count(*)::integer AS refunds_count, sum(amount) AS refunds
  FROM analytics.counted_refunds
  GROUP BY store_id, created_day, currency
)
SELECT
  store_id, day, currency,
  coalesce(o.orders_count, 0)                          AS orders_count,
  coalesce(i.items, 0)::numeric                        AS items,
  coalesce(o.gross_sales, 0)::numeric                  AS gross_sales,
  coalesce(o.discounts, 0)::numeric                    AS discounts,
  coalesce(o.shipping, 0)::numeric                     AS shipping,
  coalesce(o.tax, 0)::numeric                          AS tax,
  coalesce(r.refunds_count, 0)                         AS refunds_count,
  coalesce(r.refunds, 0)::numeric                      AS refunds,
  (coalesce(o.gross_sales, 0) - coalesce(r.refunds, 0))::numeric AS net_sales
FROM orders o
LEFT JOIN items i USING (store_id, day, currency)
FULL JOIN refunds r USING (store_id, day, currency);
