-- The store no longer has these refunds (confirmed by a 404): keep the rows, mark them.
UPDATE store.refunds SET deleted_at = now() WHERE store_id = $1 AND id = ANY($2::bigint[]) AND deleted_at IS NULL
