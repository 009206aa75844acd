-- analytics.daily_sales is analytics.daily_net_sales with more columns: the same rows, the same figures.
(SELECT 'only in daily_net_sales' AS side, store_id, day, currency, orders_count, gross_sales, refunds, net_sales
 FROM analytics.daily_net_sales
 EXCEPT ALL
 SELECT 'only in daily_net_sales', store_id, day, currency, orders_count, gross_sales, refunds, net_sales
 FROM analytics.daily_sales)
UNION ALL
(SELECT 'only in daily_sales', store_id, day, currency, orders_count, gross_sales, refunds, net_sales
 FROM analytics.daily_sales
 EXCEPT ALL
 SELECT 'only in daily_sales', store_id, day, currency, orders_count, gross_sales, refunds, net_sales
 FROM analytics.daily_net_sales)
