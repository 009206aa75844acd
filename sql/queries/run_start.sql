INSERT INTO sync.runs (store_id, command, streams) VALUES ($1, $2, $3::text[]) RETURNING id
