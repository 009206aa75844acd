SELECT day::text AS day, currency, orders_count,
       to_char(gross_sales, 'FM999999999990.00') AS gross_sales,
       to_char(refunds, 'FM999999999990.00') AS refunds,
       to_char(net_sales, 'FM999999999990.00') AS net_sales
FROM analytics.daily_net_sales
WHERE store_id = $1
ORDER BY day, currency
