UPDATE sync.runs SET finished_at = now(), status = $2, rows = $3, requests = $4, error = $5 WHERE id = $1
