-- Advances a stream's cursor together with the rows just loaded (same transaction as the load).
-- $1 store, $2 stream, $3 cursor second (epoch) or null, $4 cursor id or null (= the whole second), $5 rows loaded, $6 details
INSERT INTO sync.state AS s (store_id, stream, cursor_at, cursor_id, rows_total, details, updated_at)
VALUES ($1, $2, to_timestamp($3::bigint), $4::bigint, $5::bigint, coalesce($6::jsonb, '{}'), now())
ON CONFLICT (store_id, stream) DO UPDATE SET
  cursor_at = EXCLUDED.cursor_at, cursor_id = EXCLUDED.cursor_id,
  rows_total = s.rows_total + EXCLUDED.rows_total,
  details = coalesce($6::jsonb, s.details), updated_at = now()
