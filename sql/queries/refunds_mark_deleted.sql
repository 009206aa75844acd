-- Refunds gone from the store-wide list: mark them, and refetch the store's report for their days.
WITH marked AS (
  UPDATE store.refunds SET deleted_at = now()
  WHERE store_id = $1 AND id = ANY($2::bigint[]) AND deleted_at IS NULL
  RETURNING store_id, created_day
)
INSERT INTO sync.report_days (store_id, day)
SELECT DISTINCT store_id, created_day FROM marked
ON CONFLICT DO NOTHING
