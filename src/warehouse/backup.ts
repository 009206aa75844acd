import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as fs from "node:fs"
import { Effect, Schema } from "effect"
import { openBackupPartial } from "./backup-file.js"
import { READER } from "./reader-role.js"

/**
 * A logical backup written by shopsync itself: the embedded server ships no pg_dump, and the distribution's
 * pg_dump refuses a newer server. It is also what works against any DATABASE_URL (no file-system access to the
 * server needed) and across PostgreSQL major versions, which a physical copy of the data directory is not.
 *
 * The file is JSON lines: a header (the migration level and the sequences), then for each table of shopsync's
 * schemas a `#table {…}` line naming it and its stored columns, followed by one `row_to_json` object per row.
 * A line starting with `#` cannot be a row (those start with `{`). Everything is read in one REPEATABLE READ,
 * READ ONLY transaction: one snapshot, consistent across tables, while syncs go on.
 */
export const BACKUP_FORMAT = "shopsync-backup"

export const BackupHeader = Schema.Struct({
  format: Schema.Literal(BACKUP_FORMAT),
  version: Schema.Literal(1),
  takenAt: Schema.String,
  migrations: Schema.Array(Schema.String),
  sequences: Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.NullOr(Schema.String) })),
  /**
   * The logins holding the read-only role when the backup was taken, by name only: roles belong to the server, not
   * the database, so a backup carries none of them; restore names those to re-create (absent in older backups).
   */
  logins: Schema.optional(Schema.Array(Schema.String))
})

/** The logins granted the read-only role, by name. */
export const readerLogins = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ login: string }>`
    SELECT r.rolname AS login FROM pg_catalog.pg_auth_members m
    JOIN pg_catalog.pg_roles r ON r.oid = m.member JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
    WHERE g.rolname = ${READER} AND r.rolcanlogin ORDER BY 1`
  return rows.map((r) => r.login)
})

export const TableSection = Schema.Struct({ name: Schema.String, columns: Schema.Array(Schema.String) })

export const SECTION_PREFIX = "#table "

/** The schemas a backup holds, and the public bookkeeping it replaces by the migration level. */
export const BACKUP_SCHEMAS = ["store", "sync", "marketing", "analytics"]

const TableColumns = Schema.Struct({ name: Schema.String, columns: Schema.Array(Schema.String) })

/** Every ordinary table of shopsync's schemas with its stored columns (generated ones are computed again on restore). */
export const ourTables = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: TableColumns,
    execute: (schemas) =>
      sql`SELECT format('%I.%I', n.nspname, c.relname) AS name,
                 array(SELECT a.attname::text FROM pg_attribute a
                       WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
                       ORDER BY a.attnum) AS columns
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind = 'r' AND n.nspname = ANY (${schemas}::text[])
          ORDER BY 1`
  })(BACKUP_SCHEMAS)
})

const Sequence = Schema.Struct({ name: Schema.String, value: Schema.NullOr(Schema.String) })

const FETCH_ROWS = 2000

/**
 * Writes the backup to `<file>.partial` (created new, 0600: see openBackupPartial), renamed to `file` once complete:
 * a failed backup leaves no plausible file.
 */
export const writeBackup = (file: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const partial = `${file}.partial`
    const fd = yield* openBackupPartial(file, partial)
    const write = (text: string) => Effect.sync(() => fs.writeSync(fd, text))
    const counts = yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`
      const migrations = yield* sql<{ version: string }>`SELECT version FROM public.shopsync_migrations ORDER BY version`
      const sequences = yield* SqlSchema.findAll({
        Request: Schema.Array(Schema.String),
        Result: Sequence,
        execute: (schemas) =>
          sql`SELECT format('%I.%I', schemaname, sequencename) AS name, last_value::text AS value
              FROM pg_sequences WHERE schemaname = ANY (${schemas}::text[]) ORDER BY 1`
      })(BACKUP_SCHEMAS)
      const header: typeof BackupHeader.Type = {
        format: BACKUP_FORMAT, version: 1, takenAt: new Date().toISOString(), migrations: migrations.map((m) => m.version), sequences,
        logins: yield* readerLogins
      }
      yield* write(`${JSON.stringify(header)}\n`)
      const tables = yield* ourTables
      const counts: Array<{ table: string; rows: number }> = []
      for (const table of tables) {
        yield* write(`${SECTION_PREFIX}${JSON.stringify(table)}\n`)
        counts.push({ table: table.name, rows: yield* copyTable(table.name, write) })
      }
      return counts
    })).pipe(
      Effect.ensuring(Effect.sync(() => fs.closeSync(fd))),
      Effect.tapError(() => Effect.sync(() => fs.rmSync(partial, { force: true })))
    )
    fs.renameSync(partial, file)
    return counts
  })

/** A table's rows through a cursor, a few thousand at a time (memory stays flat however big the table). */
const copyTable = (name: string, write: (text: string) => Effect.Effect<unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // `name` is format('%I.%I') output from the catalogue: already quoted.
    yield* sql.unsafe(`DECLARE shopsync_backup NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS r FROM ${name} t`)
    let rows = 0
    for (;;) {
      const batch = yield* sql.unsafe<{ r: string }>(`FETCH ${FETCH_ROWS} FROM shopsync_backup`)
      if (batch.length === 0) break
      yield* write(batch.map((b) => `${b.r}\n`).join(""))
      rows += batch.length
    }
    yield* sql.unsafe("CLOSE shopsync_backup")
    return rows
  })
