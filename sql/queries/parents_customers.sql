-- Customers the store still has: the parents of customer downloads.
SELECT id::text AS key FROM store.customers WHERE store_id = $1 AND deleted_at IS NULL ORDER BY id
