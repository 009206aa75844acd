-- The sums behind the daily views (see migration 003): one store-local day's, per currency, from the tables,
-- with the definitions the views always had (counted orders on their creation day with their lines; counted
-- refunds on their own day, in their order's currency). The day indexes make one day cheap.
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

-- Every (store, day, currency) with a counted order or refund: the stored sums of clean days, the dirty
-- days computed now. Exact whether or not the last run stored its days.
CREATE OR REPLACE VIEW analytics.daily_totals_current AS
SELECT t.store_id, t.day, t.currency, t.orders_count, t.gross_sales, t.discounts, t.shipping, t.tax, t.items, t.refunds_count, t.refunds
FROM analytics.daily_totals t
WHERE NOT EXISTS (SELECT 1 FROM analytics.daily_dirty d WHERE d.store_id = t.store_id AND d.day = t.day)
UNION ALL
SELECT d.store_id, d.day, x.currency, x.orders_count, x.gross_sales, x.discounts, x.shipping, x.tax, x.items, x.refunds_count, x.refunds
FROM (SELECT DISTINCT store_id, day FROM analytics.daily_dirty) d
CROSS JOIN LATERAL analytics.day_totals(d.store_id, d.day) x;

-- Stores the sums of a store's dirty days and forgets them; run at the end of each sync. A day a concurrent
-- write notes after the dirty rows were taken stays dirty for the next one. Returns the days stored.
CREATE OR REPLACE FUNCTION analytics.refresh_daily_totals(p_store text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  days date[];
BEGIN
  WITH taken AS (DELETE FROM analytics.daily_dirty WHERE store_id = p_store RETURNING day)
  SELECT array_agg(DISTINCT day ORDER BY day) INTO days FROM taken;
  IF days IS NULL THEN
    RETURN 0;
  END IF;
  -- Many days at once come from a load (a first sync, a backfill) that filled the tables faster than autovacuum
  -- analyzes them: planned without statistics, each day's sums scan whole tables (minutes for 100,000 orders,
  -- against about a second with them). A month of days or fewer is an incremental run's, on analyzed tables.
  IF cardinality(days) > 31 THEN
    ANALYZE store.orders, store.order_line_items, store.refunds;
  END IF;
  DELETE FROM analytics.daily_totals WHERE store_id = p_store AND day = ANY (days);
  INSERT INTO analytics.daily_totals (store_id, day, currency, orders_count, gross_sales, discounts, shipping, tax, items, refunds_count, refunds)
  SELECT p_store, d.day, x.currency, x.orders_count, x.gross_sales, x.discounts, x.shipping, x.tax, x.items, x.refunds_count, x.refunds
  FROM unnest(days) AS d(day)
  CROSS JOIN LATERAL analytics.day_totals(p_store, d.day) x;
  RETURN cardinality(days);
END $$;
