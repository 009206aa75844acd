-- analytics.day_totals(store, day): one store-local day's sums per currency, from the tables, by the day rule
-- (analytics.sales_days, migration 019; a declared test holds the marts to it). Counted orders count on their
-- creation day: orders_count, gross_sales (their `total`, which includes tax and shipping), discounts, shipping
-- and tax (their discount_total, shipping_total and total_tax) and items (their lines' quantities). Counted
-- refunds count on their own day: refunds_count and refunds (their amounts). It filters on created_day itself
-- rather than calling the rule so that the day indexes make one day cheap. analytics.daily_totals_current calls it for the dirty days,
-- analytics.refresh_daily_totals to store them.
CREATE OR REPLACE FUNCTION analytics.day_totals(p_store text, p_day date)
RETURNS TABLE (currency text, orders_count integer, gross_sales numeric, discounts numeric, shipping numeric, tax numeric,
               items numeric, refunds_count integer, refunds numeric)
LANGUAGE sql STABLE AS $$
  WITH orders AS (
    SELECT o.currency, count(*)::integer AS orders_count, sum(o.total) AS gross_sales, sum(o.discount_total) AS discounts,
           sum(o.shipping_total) AS shipping, sum(o.total_tax) AS tax
    FROM analytics.counted_orders o
    WHERE o.store_id = p_store AND o.created_day = p_day
    GROUP BY o.currency
  ), items AS (
    SELECT o.currency, sum(li.quantity) AS items
    FROM analytics.counted_orders o
    JOIN store.order_line_items li ON li.store_id = o.store_id AND li.order_id = o.id
    WHERE o.store_id = p_store AND o.created_day = p_day
    GROUP BY o.currency
  ), refunds AS (
    SELECT r.currency, count(*)::integer AS refunds_count, sum(r.amount) AS refunds
    FROM analytics.counted_refunds r
    WHERE r.store_id = p_store AND r.created_day = p_day
    GROUP BY r.currency
  )
  SELECT currency, coalesce(o.orders_count, 0), coalesce(o.gross_sales, 0), coalesce(o.discounts, 0), coalesce(o.shipping, 0),
         coalesce(o.tax, 0), coalesce(i.items, 0), coalesce(r.refunds_count, 0), coalesce(r.refunds, 0)
  FROM orders o
  LEFT JOIN items i USING (currency)
  FULL JOIN refunds r USING (currency)
$$;

COMMENT ON FUNCTION analytics.day_totals(text, date) IS
  'One store-local day''s sums per currency computed from the tables: counted orders by creation day (orders_count, gross_sales = their totals, tax and shipping included, discounts, shipping, tax, items), counted refunds by their own day.';
