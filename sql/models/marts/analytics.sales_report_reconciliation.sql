-- analytics.sales_report_reconciliation: the warehouse's per-day figures beside the store's own /reports/sales
-- figures (store.sales_report_daily), one row per store and day either side has, for checking the sync.
-- The store's report sums every currency together, so the warehouse side does too. `differs` flags a day
-- whose figures disagree; `note` says why they may, among the expected differences:
--  * the report was fetched before later changes (re-run sync with the reports stream);
--  * orders in several currencies are summed as plain numbers by the store (a matching day says so);
--  * the report's total_refunds counts a refunded order's whole total in any range holding one of its
--    refunds, while per-day refunds count each refund on its own store-local day: when an order's refunds
--    straddle days, only the per-day sum is a correct basis for net sales.
CREATE OR REPLACE VIEW analytics.sales_report_reconciliation AS
WITH warehouse AS (
  SELECT store_id, day,
         sum(orders_count)::integer AS orders_count,
         sum(gross_sales)           AS gross_sales,
         sum(refunds)               AS refunds,
         count(DISTINCT currency)::integer AS currencies
  FROM analytics.daily_net_sales
  GROUP BY store_id, day
)
SELECT
  store_id,
  day,
  coalesce(w.orders_count, 0)         AS warehouse_orders,
  r.orders                            AS report_orders,
  coalesce(w.gross_sales, 0)::numeric AS warehouse_sales,
  r.sales                             AS report_sales,
  coalesce(w.refunds, 0)::numeric     AS warehouse_refunds,
  r.refunds                           AS report_refunds,
  (r.day IS NULL
    OR coalesce(w.orders_count, 0) <> r.orders
    OR coalesce(w.gross_sales, 0) <> r.sales
    OR (r.refunds IS NOT NULL AND coalesce(w.refunds, 0) <> r.refunds)) AS differs,
  CASE
    WHEN r.day IS NULL THEN 'no store report for this day yet: run sync with the reports stream'
    WHEN w.day IS NULL AND r.orders = 0 AND coalesce(r.refunds, 0) = 0 THEN 'no sales on either side'
    WHEN coalesce(w.orders_count, 0) <> r.orders THEN 'order counts differ: orders changed after the report was fetched, or are not yet synced'
    WHEN coalesce(w.gross_sales, 0) <> r.sales AND w.currencies > 1 THEN 'the store sums several currencies as plain numbers'
    WHEN coalesce(w.gross_sales, 0) <> r.sales THEN 'sales differ: order totals changed after the report was fetched'
    WHEN r.refunds IS NOT NULL AND coalesce(w.refunds, 0) <> r.refunds THEN
      'refunds differ: per-day refunds count each refund on its own date; an order''s refunds may straddle days, and the store''s report counts its whole total on each'
    WHEN w.currencies > 1 THEN 'matches; both sides add several currencies as plain numbers (daily_net_sales has them apart)'
    ELSE 'matches'
  END AS note
FROM warehouse w
FULL JOIN store.sales_report_daily r USING (store_id, day);

COMMENT ON VIEW analytics.sales_report_reconciliation IS
  'The warehouse''s per-day figures beside the store''s own /reports/sales ones (store.sales_report_daily), one row per store and store-local day either side has, every currency summed as the store does; differs flags a disagreement and note says why it may.';
COMMENT ON COLUMN analytics.sales_report_reconciliation.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN analytics.sales_report_reconciliation.day IS 'The store-local day.';
COMMENT ON COLUMN analytics.sales_report_reconciliation.warehouse_orders IS 'Counted orders created that day (analytics.daily_net_sales, every currency).';
COMMENT ON COLUMN analytics.sales_report_reconciliation.report_orders IS 'The store report''s `orders` of the day; NULL when the report for the day is not fetched yet.';
COMMENT ON COLUMN analytics.sales_report_reconciliation.warehouse_sales IS 'The warehouse''s gross_sales of the day, every currency summed as plain numbers.';
COMMENT ON COLUMN analytics.sales_report_reconciliation.report_sales IS 'The store report''s `sales` of the day, every currency summed by the store.';
COMMENT ON COLUMN analytics.sales_report_reconciliation.warehouse_refunds IS 'The warehouse''s refunds of the day (each refund on its own day), every currency summed.';
COMMENT ON COLUMN analytics.sales_report_reconciliation.report_refunds IS 'The store report''s `refunds` of the day; NULL when its report has no such field.';
COMMENT ON COLUMN analytics.sales_report_reconciliation.differs IS 'The two sides disagree (or the store''s report for the day is missing).';
COMMENT ON COLUMN analytics.sales_report_reconciliation.note IS 'Why the day matches or may differ: report fetched before a change, currencies summed, refunds straddling days.';
