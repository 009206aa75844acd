SELECT id AS run, command, status,
       to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS started,
       round(extract(epoch FROM coalesce(finished_at, now()) - started_at)::numeric, 1) AS seconds,
       rows, requests, left(coalesce(error, ''), 120) AS error
FROM sync.runs
WHERE store_id = $1
ORDER BY started_at DESC
LIMIT 5
