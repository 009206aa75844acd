-- Per-order refund lists are complete: refunds of the order missing from the list were deleted.
UPDATE store.refunds SET deleted_at = now()
WHERE store_id = $1 AND order_id = $2 AND deleted_at IS NULL AND NOT (id = ANY($3::bigint[]))
