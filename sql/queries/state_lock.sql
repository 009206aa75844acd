-- A stream's state, locked until the transaction ends: concurrent slices of one stream checkpoint one at a time,
-- each on top of the others' committed progress.
SELECT extract(epoch FROM cursor_at)::bigint AS cursor_at, cursor_id, details
FROM sync.state WHERE store_id = $1 AND stream = $2
FOR UPDATE
