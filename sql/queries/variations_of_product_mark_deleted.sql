UPDATE store.product_variations SET deleted_at = now()
WHERE store_id = $1 AND product_id = $2 AND deleted_at IS NULL AND NOT (id = ANY($3::bigint[]))
