INSERT INTO sync.state AS s (store_id, stream, last_run_id, last_started_at)
VALUES ($1, $2, $3, now())
ON CONFLICT (store_id, stream) DO UPDATE SET last_run_id = $3, last_started_at = now()
