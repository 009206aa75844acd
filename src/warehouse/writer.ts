import * as SqlClient from "@effect/sql/SqlClient"
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

/** What goes with a page besides its documents. */
interface PageExtras<E, R> {
  /** The stream's checkpoint, run in the page's transaction after its rows are merged. */
  readonly checkpoint?: Effect.Effect<void, E, R>
  /** Parameters of `sql/load/<kind>.sql` (which must then be a single statement). */
  readonly mergeParams?: ReadonlyArray<unknown>
  /** The documents' JSON array as the store sent it, when they are exactly those: staged without serializing them again. */
  readonly json?: string
}

/**
 * Merges one page of documents (and runs the stream's checkpoint, when given) in a single
 * transaction: a crash leaves either both or neither, so the next run resumes exactly here.
 *
 * The commit does not wait for the WAL flush (synchronous_commit off): a server crash can lose the
 * last few committed pages, but only whole transactions, each with its checkpoint, so the stream
 * resumes before them; what it buys is one disk flush less per page.
 */
export const loadPage = <E = never, R = never>(
  kind: LoadKind,
  storeId: string,
  docs: ReadonlyArray<unknown>,
  extras: PageExtras<E, R> = {}
): Effect.Effect<void, SqlError | E, SqlClient.SqlClient | R> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      yield* sql.unsafe("SET LOCAL synchronous_commit = off")
      if (docs.length > 0) {
        yield* sql.unsafe(sqlFile("load/stage"))
        yield* sql.unsafe(sqlFile("load/stage_insert"), [storeId, extras.json ?? JSON.stringify(docs)])
        yield* sql.unsafe(sqlFile(`load/${kind}`), (extras.mergeParams ?? []) as Array<unknown>)
      }
      if (extras.checkpoint) yield* extras.checkpoint
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
