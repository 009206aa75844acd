SELECT min(created_day)::text AS first, max(created_day)::text AS last FROM store.orders WHERE store_id = $1
