SELECT extract(epoch FROM min(date_created))::bigint AS at FROM store.refunds WHERE store_id = $1 AND deleted_at IS NULL
