SELECT extract(epoch FROM min(date_modified))::bigint AS at FROM store.orders WHERE store_id = $1 AND deleted_at IS NULL
