-- Live orders whose date_modified lies in [$2, $3) (epoch seconds): compared with the store's X-WP-Total for the same range.
SELECT count(*)::integer AS n FROM store.orders
WHERE store_id = $1 AND deleted_at IS NULL AND date_modified >= to_timestamp($2::bigint) AND date_modified < to_timestamp($3::bigint)
