import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { sqlFile } from "./sql-files.js"

/** What a document batch is merged into: `sql/load/<kind>.sql`. */
export type LoadKind = "orders" | "refunds" | "customers" | "products" | "variations"

/** A stream's position: every row ordered at or before (at, id) is loaded; id null = all of second `at`. */
export interface Cursor {
  readonly at: number
  readonly id: number | null
}

export interface StreamState {
  readonly cursor: Cursor | null
  readonly details: Readonly<Record<string, unknown>>
}

/** Plain statements from `sql/queries/`, run with positional parameters. */
export const query = <A extends object = Record<string, unknown>>(name: string, params: ReadonlyArray<unknown> = []) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(sqlFile(`queries/${name}`), params as Array<unknown>))

/**
 * Merges one page of documents (and advances the stream's cursor, when given) in a single
 * transaction: a crash leaves either both or neither, so the next run resumes exactly here.
 */
export const loadPage = (
  kind: LoadKind,
  storeId: string,
  docs: ReadonlyArray<unknown>,
  checkpoint?: { readonly stream: string; readonly cursor: Cursor | null; readonly details?: unknown }
): Effect.Effect<void, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      if (docs.length > 0) {
        yield* sql.unsafe(sqlFile("load/stage"))
        yield* sql.unsafe(sqlFile("load/stage_insert"), [storeId, JSON.stringify(docs)])
        yield* sql.unsafe(sqlFile(`load/${kind}`))
      }
      if (checkpoint) yield* saveCursor(storeId, checkpoint.stream, checkpoint.cursor, docs.length, checkpoint.details)
    })))

export const saveCursor = (storeId: string, stream: string, cursor: Cursor | null, rows: number, details?: unknown) =>
  query("state_checkpoint", [
    storeId,
    stream,
    cursor?.at ?? null,
    cursor?.id ?? null,
    rows,
    details === undefined ? null : JSON.stringify(details)
  ])

export const readState = (storeId: string, stream: string): Effect.Effect<StreamState, SqlError, SqlClient.SqlClient> =>
  query<{ cursor_at: string | null; cursor_id: string | null; details: Record<string, unknown> }>("state_get", [storeId, stream]).pipe(
    Effect.map(([row]) => ({
      cursor: row && row.cursor_at !== null
        ? { at: Number(row.cursor_at), id: row.cursor_id === null ? null : Number(row.cursor_id) }
        : null,
      details: row?.details ?? {}
    }))
  )

export const idsOf = (rows: ReadonlyArray<{ id: string | number }>) => rows.map((r) => Number(r.id))
