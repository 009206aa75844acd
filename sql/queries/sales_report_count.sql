SELECT count(*)::integer AS n FROM store.sales_report_daily WHERE store_id = $1
