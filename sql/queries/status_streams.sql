-- A stream walked in slices shows its lowest pending cursor and how many slices remain (a run stopped mid-way);
-- a stream with periodic full passes (children, customers) shows when the last one was; `rows` counts what
-- the warehouse holds for the stream now (its live rows), `last_rows` what the last run wrote.
-- $1 store, $2 stream names, $3 their tables
WITH tables AS (SELECT * FROM unnest($2::text[], $3::text[]) AS t(stream, tbl))
SELECT stream,
       coalesce(to_char(cursor_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || coalesce(' #' || cursor_id, ''), '') ||
         CASE WHEN details ? 'slices' THEN ' (' || (SELECT count(*) FROM jsonb_object_keys(details->'slices')) || ' slices pending)' ELSE '' END ||
         coalesce('full pass ' || to_char(to_timestamp((details->>'lastFullPass')::bigint) AT TIME ZONE 'UTC',
                                          'YYYY-MM-DD"T"HH24:MI:SS"Z"'), '') AS cursor,
       coalesce(sync.live_rows(tables.tbl::regclass, $1)::text, '') AS rows,
       last_rows,
       to_char(last_started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_started,
       to_char(last_success_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_success,
       left(coalesce(last_error, ''), 160) AS last_error
FROM sync.state LEFT JOIN tables USING (stream)
WHERE store_id = $1
ORDER BY stream
