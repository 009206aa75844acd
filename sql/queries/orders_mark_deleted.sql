-- The store no longer has these orders (confirmed by a 404): keep the rows, mark them, and have the
-- store's report fetched again for the days they (and their refunds) counted on.
WITH marked AS (
  UPDATE store.orders SET deleted_at = now()
  WHERE store_id = $1 AND id = ANY($2::bigint[]) AND deleted_at IS NULL
  RETURNING store_id, id, created_day
)
INSERT INTO sync.report_days (store_id, day)
SELECT store_id, created_day FROM marked
UNION
SELECT r.store_id, r.created_day FROM store.refunds r JOIN marked m ON r.store_id = m.store_id AND r.order_id = m.id
ON CONFLICT DO NOTHING
