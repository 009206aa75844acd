-- The daily marts have a row on exactly the days the day rule (analytics.sales_days, migration 019) gives for the
-- counted orders (as their lines would: on the order's day) and the counted refunds (on their own). The rule is
-- written once there; analytics.day_totals must sum by it. Returns the (store, day) pairs on one side only.
WITH rule AS (
  SELECT * FROM analytics.sales_days(
    '{}',
    ARRAY(SELECT (store_id, order_id, created_day)::analytics.sales_row FROM analytics.counted_refunds),
    ARRAY(SELECT (store_id, id, NULL)::analytics.sales_row FROM analytics.counted_orders))
), marts AS (
  SELECT DISTINCT store_id, day FROM analytics.daily_net_sales
)
SELECT store_id, day, m.day IS NOT NULL AS in_marts, r.day IS NOT NULL AS by_the_rule
FROM marts m FULL JOIN rule r USING (store_id, day)
WHERE m.day IS NULL OR r.day IS NULL
