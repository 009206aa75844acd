-- Live refunds whose date_created lies in [$2, $3) (epoch seconds): compared with the store's X-WP-Total for the same range.
SELECT count(*)::integer AS n FROM store.refunds
WHERE store_id = $1 AND deleted_at IS NULL AND date_created >= to_timestamp($2::bigint) AND date_created < to_timestamp($3::bigint)
