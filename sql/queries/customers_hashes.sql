-- The stored document hashes of some live customers. $1 store, $2 ids
SELECT id, doc_hash FROM store.customers WHERE store_id = $1 AND id = ANY($2::bigint[]) AND deleted_at IS NULL
