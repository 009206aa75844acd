-- Per-order refund lists are complete: refunds of the order missing from the list were deleted.
WITH marked AS (
  UPDATE store.refunds SET deleted_at = now()
  WHERE store_id = $1 AND order_id = $2 AND deleted_at IS NULL AND NOT (id = ANY($3::bigint[]))
  RETURNING store_id, created_day
)
INSERT INTO sync.report_days (store_id, day)
SELECT DISTINCT store_id, created_day FROM marked
ON CONFLICT DO NOTHING
