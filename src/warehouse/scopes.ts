import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import { CurrentStore } from "./current-store.js"
import { fencedStatement } from "./lease.js"

/** A document of a resource table, named by its scope (parent id, endpoint, period; '' for a plain list) and key. */
export interface ScopedDoc {
  readonly scope: string
  readonly key: string
  readonly doc: unknown
}

const ScopeKey = Schema.Struct({ scope: Schema.String, key: Schema.String })
export const Change = Schema.Struct({ scope: Schema.String, key: Schema.String, change: Schema.String })
export type Change = typeof Change.Type
const decodeChanges = Schema.decodeUnknown(Schema.Array(Change))

/** The service as its layer makes it; a job makes a store's repositories with it in one go (jobs/layers.ts). */
export const makeScopes = Effect.gen(function*() {
  const { storeId } = yield* CurrentStore
  const sql = yield* SqlClient.SqlClient
  // Staged and merged in one statement (sync.write_scope_docs): whole `scopes`, or new and changed documents only
  // (null). Its proof is a condition without columns: PostgreSQL tests it once, before the function runs.
  const write = (table: string, docs: ReadonlyArray<ScopedDoc>, scopes: ReadonlyArray<string> | null) =>
    fencedStatement(sql)((proved) =>
      sql`SELECT scope, key, change FROM sync.write_scope_docs(${table}::regclass, ${storeId}, ${JSON.stringify(docs)}::jsonb, ${scopes}::text[])
          WHERE ${proved}`.pipe(Effect.flatMap((rows) => Effect.orDie(decodeChanges(rows)))))

  return {
    /** The live keys of `scopes`. */
    keys: (table: string, scopes: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<typeof ScopeKey.Type>, SqlError> =>
      sql`SELECT scope, key FROM sync.scope_keys(${table}::regclass, ${storeId}, ${scopes}::text[])`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(ScopeKey))), Effect.orDie),
    /**
     * Replaces `scopes` with `docs` in one statement: new and changed documents are written, unchanged ones left
     * alone, and the ones a scope no longer lists marked deleted. Returns what changed.
     */
    merge: (table: string, scopes: ReadonlyArray<string>, docs: ReadonlyArray<ScopedDoc>): Effect.Effect<ReadonlyArray<Change>, SqlError> =>
      write(table, docs, scopes),
    /** Writes `docs` (new and changed ones; nothing is marked deleted), in one statement: a page of a long list. */
    upsert: (table: string, docs: ReadonlyArray<ScopedDoc>): Effect.Effect<ReadonlyArray<Change>, SqlError> =>
      docs.length === 0 ? Effect.succeed([]) : write(table, docs, null),
    /** Marks deleted the live rows of `scope` whose key is not among `listed` (a long list read whole); returns their keys. */
    retireUnlisted: (table: string, scope: string, listed: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>, SqlError> =>
      fencedStatement(sql)((proved) =>
        sql<{ key: string }>`SELECT key FROM sync.retire_unlisted(${table}::regclass, ${storeId}, ${scope}, ${listed}::text[]) WHERE ${proved}`.pipe(
          Effect.map((rows) => rows.map((r) => r.key)))),
    /**
     * Marks deleted the rows whose parent is not a live row of `parents` (a sales table), or with `since` (a
     * timestamptz), only those whose parent was marked deleted since; returns how many.
     */
    retireOrphansOf: (table: string, parents: string, since: string | null): Effect.Effect<number, SqlError> =>
      fencedStatement(sql)((proved) =>
        (since === null
          ? sql<{ retired: number }>`SELECT sync.retire_orphans_of(${table}::regclass, ${storeId}, ${parents}::regclass) AS retired WHERE ${proved}`
          : sql<{ retired: number }>`SELECT sync.retire_orphans_since(${table}::regclass, ${storeId}, ${parents}::regclass, ${since}::timestamptz) AS retired
                                     WHERE ${proved}`).pipe(
          Effect.map(([row]) => Number(row?.retired ?? 0)))),
    /** Marks deleted the rows whose parent is not a live top-level key of `parents` (a resource table); returns how many. */
    retireOrphanScopes: (table: string, parents: string): Effect.Effect<number, SqlError> =>
      fencedStatement(sql)((proved) =>
        sql<{ retired: number }>`SELECT sync.retire_orphan_scopes(${table}::regclass, ${storeId}, ${parents}::regclass) AS retired WHERE ${proved}`.pipe(
          Effect.map(([row]) => Number(row?.retired ?? 0)))),
    /** Marks deleted the rows whose parent is not among `liveParents`; returns how many. */
    retireOrphans: (table: string, liveParents: ReadonlyArray<string>): Effect.Effect<number, SqlError> =>
      fencedStatement(sql)((proved) =>
        sql<{ retired: number }>`SELECT sync.retire_orphans(${table}::regclass, ${storeId}, ${liveParents}::text[]) AS retired WHERE ${proved}`.pipe(
          Effect.map(([row]) => Number(row?.retired ?? 0))))
  }
})

/**
 * One store's resource tables (`store.tax_rates`, `store.order_notes`, …: one shape, see migration 004), kept
 * by full refreshes of scopes through `sync.merge_scopes`. `table` is schema-qualified and passed to PostgreSQL
 * as a regclass value, never spliced into SQL.
 */
export class Scopes extends Effect.Service<Scopes>()("shopsync/Scopes", { effect: makeScopes }) {}
