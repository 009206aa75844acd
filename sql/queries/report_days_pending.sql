SELECT day::text AS day FROM sync.report_days WHERE store_id = $1 ORDER BY day
