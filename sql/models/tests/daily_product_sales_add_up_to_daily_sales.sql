-- analytics.daily_product_sales splits the day's order lines by product: per (store, day, currency) its quantities
-- add up to analytics.daily_sales's items, and it has no day the daily marts lack (both follow the day rule).
-- Returns the days that disagree.
WITH products AS (
  SELECT store_id, day, currency, sum(quantity) AS items FROM analytics.daily_product_sales GROUP BY store_id, day, currency
)
SELECT store_id, day, currency, p.items AS product_items, d.items AS daily_items
FROM products p
FULL JOIN analytics.daily_sales d USING (store_id, day, currency)
WHERE d.store_id IS NULL OR coalesce(p.items, 0) <> d.items
