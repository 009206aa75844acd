-- The local days whose figures a deletion changed: $2 order ids, $3 refund ids.
SELECT created_day::text AS day FROM store.orders WHERE store_id = $1 AND id = ANY($2::bigint[])
UNION
SELECT created_day::text FROM store.refunds WHERE store_id = $1 AND id = ANY($3::bigint[])
