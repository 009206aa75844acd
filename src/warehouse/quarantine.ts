import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import { CurrentStore } from "./current-store.js"
import type { Rejected } from "./screen.js"

/** A quarantined document as `status` lists it. */
export const HeldRow = Schema.Struct({
  stream: Schema.String,
  id: Schema.String,
  kind: Schema.String,
  reason: Schema.String,
  attempts: Schema.Number,
  first_seen: Schema.String
})
export type HeldRow = typeof HeldRow.Type

/** A quarantined document's id and the GET that reads it again. */
export const HeldKey = Schema.Struct({ id: Schema.String, path: Schema.NullOr(Schema.String) })
export type HeldKey = typeof HeldKey.Type

const CleanedCount = Schema.Struct({ stream: Schema.String, documents: Schema.Number })
const StreamKey = Schema.Struct({ stream: Schema.String, id: Schema.String, path: Schema.NullOr(Schema.String) })

/** The repository of store.quarantine and store.cleaned (migration 008) for one store. */
export interface QuarantineRepo {
  /** Sets documents aside, or counts one more attempt of those already there (keeping their first sighting). */
  readonly hold: (stream: string, rejected: ReadonlyArray<Rejected>) => Effect.Effect<void, SqlError>
  /** Documents that landed, or that the store no longer has, leave the quarantine. */
  readonly release: (stream: string, ids: ReadonlyArray<string>) => Effect.Effect<void, SqlError>
  /** The stream's quarantined documents. */
  readonly held: (stream: string) => Effect.Effect<ReadonlyArray<HeldKey>, SqlError>
  /** Every stream's quarantined documents, in one statement. */
  readonly heldByStream: Effect.Effect<ReadonlyMap<string, ReadonlyArray<HeldKey>>, SqlError>
  /** Notes that these documents were stored without their NUL characters. */
  readonly noteCleaned: (stream: string, ids: ReadonlyArray<string>) => Effect.Effect<void, SqlError>
  /** Every quarantined document of the store by stream, oldest first; reasons on one line, cut at 120 characters. */
  readonly list: Effect.Effect<ReadonlyArray<HeldRow>, SqlError>
  /** Documents stored without their NULs, per stream. */
  readonly cleanedCounts: Effect.Effect<ReadonlyArray<typeof CleanedCount.Type>, SqlError>
}

/** The last copy of each id: one statement cannot touch a row twice. */
const lastById = (rejected: ReadonlyArray<Rejected>) => [...new Map(rejected.map((r) => [r.id, r])).values()]

export const makeQuarantineRepo = (sql: SqlClient.SqlClient, storeId: string): QuarantineRepo => {
  const decode = <A, I>(schema: Schema.Schema<A, I>) => <E, R>(rows: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    rows.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(schema))), Effect.catchTag("ParseError", Effect.die))

  const hold = (stream: string, rejected: ReadonlyArray<Rejected>) => {
    const rows = lastById(rejected)
    if (rows.length === 0) return Effect.void
    return sql`
      INSERT INTO store.quarantine AS q (store_id, stream, id, kind, reason, doc, path)
      SELECT ${storeId}, ${stream}, x.id, x.kind, x.reason, x.doc, x.path
      FROM unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.kind)}::text[], ${rows.map((r) => r.reason)}::text[],
                  ${rows.map((r) => r.doc)}::text[], ${rows.map((r) => r.path)}::text[]) AS x(id, kind, reason, doc, path)
      ON CONFLICT (store_id, stream, id) DO UPDATE SET
        kind = EXCLUDED.kind, reason = EXCLUDED.reason, doc = EXCLUDED.doc, path = coalesce(EXCLUDED.path, q.path),
        last_seen = now(), attempts = q.attempts + 1`.pipe(Effect.asVoid)
  }

  const noteCleaned = (stream: string, ids: ReadonlyArray<string>) =>
    ids.length === 0 ? Effect.void : sql`
      INSERT INTO store.cleaned AS c (store_id, stream, id)
      SELECT DISTINCT ${storeId}, ${stream}, x.id FROM unnest(${ids}::text[]) AS x(id)
      ON CONFLICT (store_id, stream, id) DO UPDATE SET last_seen = now(), times = c.times + 1`.pipe(Effect.asVoid)

  return {
    hold,
    release: (stream, ids) =>
      ids.length === 0
        ? Effect.void
        : sql`DELETE FROM store.quarantine WHERE store_id = ${storeId} AND stream = ${stream} AND id = ANY(${ids}::text[])`.pipe(Effect.asVoid),
    held: (stream) => sql`SELECT id, path FROM store.quarantine WHERE store_id = ${storeId} AND stream = ${stream} ORDER BY first_seen, id`.pipe(decode(HeldKey)),
    heldByStream: sql`SELECT stream, id, path FROM store.quarantine WHERE store_id = ${storeId} ORDER BY stream, first_seen, id`.pipe(
      decode(StreamKey),
      Effect.map((rows) => {
        const byStream = new Map<string, Array<HeldKey>>()
        for (const { stream, id, path } of rows) {
          const held = byStream.get(stream) ?? []
          held.push({ id, path })
          byStream.set(stream, held)
        }
        return byStream
      })
    ),
    noteCleaned,
    list: sql`
      SELECT stream, id, kind, left(regexp_replace(reason, '[[:space:]]+', ' ', 'g'), 120) AS reason, attempts,
             to_char(first_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS first_seen
      FROM store.quarantine WHERE store_id = ${storeId} ORDER BY stream, first_seen, id`.pipe(decode(HeldRow)),
    cleanedCounts: sql`SELECT stream, count(*)::integer AS documents FROM store.cleaned WHERE store_id = ${storeId} GROUP BY stream ORDER BY stream`.pipe(
      decode(CleanedCount))
  }
}

/** The quarantine of one store, for `status` (the sync reaches it through the Loader, which files what it sets aside). */
export class Quarantine extends Effect.Service<Quarantine>()("shopsync/Quarantine", {
  effect: Effect.gen(function*() {
    const { storeId } = yield* CurrentStore
    return makeQuarantineRepo(yield* SqlClient.SqlClient, storeId)
  })
}) {}
