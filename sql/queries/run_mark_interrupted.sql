-- Runs still 'running' while we hold the store's lock were cut short (killed process, lost host).
UPDATE sync.runs SET status = 'failed', finished_at = coalesce(finished_at, now()),
       error = 'interrupted: the process ended before the run finished; the next run resumed from the last checkpoint'
WHERE store_id = $1 AND status = 'running'
