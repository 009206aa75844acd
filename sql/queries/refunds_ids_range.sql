SELECT id FROM store.refunds
WHERE store_id = $1 AND deleted_at IS NULL AND date_created >= to_timestamp($2::bigint) AND date_created < to_timestamp($3::bigint)
