SELECT id FROM store.products
WHERE store_id = $1 AND deleted_at IS NULL AND date_modified >= to_timestamp($2::bigint) AND date_modified < to_timestamp($3::bigint)
