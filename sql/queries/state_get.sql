SELECT extract(epoch FROM cursor_at)::bigint AS cursor_at, cursor_id, details
FROM sync.state WHERE store_id = $1 AND stream = $2
