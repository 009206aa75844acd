import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"

/** What `status` shows for one stream (texts formatted by PostgreSQL). */
export const StreamStatus = Schema.Struct({
  stream: Schema.String,
  cursor: Schema.String,
  rows: Schema.String,
  last_rows: Schema.NullOr(Schema.String),
  last_started: Schema.NullOr(Schema.String),
  last_success: Schema.NullOr(Schema.String),
  last_error: Schema.String
})
export type StreamStatus = typeof StreamStatus.Type

const decodeStatus = Schema.decodeUnknown(Schema.Array(StreamStatus))

/**
 * A stream walked in slices shows its lowest pending cursor and how many slices remain (a run stopped mid-way);
 * one with periodic full passes (children, customers) when the last one was; `rows` counts what the warehouse
 * holds for the stream now (its live rows), `last_rows` what the last run wrote.
 */
export const streamsStatus = (sql: SqlClient.SqlClient, storeId: string, tables: Readonly<Record<string, string>>) =>
  sql`
    WITH tables AS (SELECT * FROM unnest(${Object.keys(tables)}::text[], ${Object.values(tables)}::text[]) AS t(stream, tbl))
    SELECT stream,
           coalesce(to_char(cursor_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || coalesce(' #' || cursor_id, ''), '') ||
             CASE WHEN details ? 'slices' THEN ' (' || (SELECT count(*) FROM jsonb_object_keys(details->'slices')) || ' slices pending)' ELSE '' END ||
             CASE WHEN details ? 'pass' THEN 'full pass under way, after ' || (details->'pass'->>'after') || '; ' ELSE '' END ||
             coalesce('full pass ' || to_char(to_timestamp((details->>'lastFullPass')::bigint) AT TIME ZONE 'UTC',
                                              'YYYY-MM-DD"T"HH24:MI:SS"Z"'), '') AS cursor,
           coalesce(sync.live_rows(tables.tbl::regclass, ${storeId})::text, '') AS rows,
           last_rows,
           to_char(last_started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_started,
           to_char(last_success_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_success,
           CASE WHEN details ? 'unavailable'
                THEN 'unavailable (checked ' || to_char(to_timestamp((details->'unavailable'->>'checkedAt')::bigint) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')
                     || '): ' || left(details->'unavailable'->>'reason', 140)
                ELSE left(coalesce(last_error, ''), 160) END AS last_error
    FROM sync.state LEFT JOIN tables USING (stream)
    WHERE store_id = ${storeId}
    ORDER BY stream`.pipe(Effect.flatMap(decodeStatus), Effect.orDie)
