-- Orders the store still has (trashed ones included): the parents of order notes.
SELECT id::text AS key FROM store.orders WHERE store_id = $1 AND deleted_at IS NULL ORDER BY id
