SELECT id FROM store.customers WHERE store_id = $1 AND deleted_at IS NULL
