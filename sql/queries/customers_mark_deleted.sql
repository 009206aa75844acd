UPDATE store.customers SET deleted_at = now() WHERE store_id = $1 AND id = ANY($2::bigint[]) AND deleted_at IS NULL
