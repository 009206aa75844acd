import * as SqlClient from "@effect/sql/SqlClient"
import * as fs from "node:fs"
import * as readline from "node:readline"
import { Effect, Schema } from "effect"
import { BackupHeader, ourTables, readerLogins, SECTION_PREFIX, TableSection } from "./backup.js"
import { BackupFailed } from "./backup-file.js"
import { migrate, migrateTo } from "./migrate.js"
import { sqlFolder } from "./sql-files.js"

/** Rows per INSERT, and a bound on the JSON text one statement carries. */
const BATCH_ROWS = 2000
const BATCH_BYTES = 8 * 1024 * 1024

/** The backup's lines, one at a time (a backup may be far larger than memory). */
const lines = (file: string) =>
  Effect.try({
    try: () => {
      fs.accessSync(file, fs.constants.R_OK)
      const it = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })[Symbol.asyncIterator]()
      return () => Effect.promise(() => it.next()).pipe(Effect.map((r) => (r.done ? undefined : r.value)))
    },
    catch: (e) => new BackupFailed({ file, reason: `cannot read it (${String(e)}); give the path of a file \`shopsync warehouse backup\` wrote` })
  })

/**
 * A warehouse a backup may go into: no rows in any of shopsync's tables, and no migration the backup's level
 * lacks (its rows never went through those migrations).
 */
const checkFresh = (file: string, migrations: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [bookkeeping] = yield* sql<{ exists: boolean }>`SELECT to_regclass('public.shopsync_migrations') IS NOT NULL AS exists`
    if (!bookkeeping!.exists) return
    const applied = yield* sql<{ version: string }>`SELECT version FROM public.shopsync_migrations`
    const newer = applied.map((a) => a.version).filter((v) => !migrations.includes(v))
    const filled: Array<string> = []
    for (const t of yield* ourTables) {
      const [row] = yield* sql.unsafe<{ any: boolean }>(`SELECT EXISTS (SELECT FROM ${t.name}) AS any`)
      if (row!.any) filled.push(t.name)
    }
    if (newer.length > 0 || filled.length > 0) {
      return yield* new BackupFailed({
        file,
        reason: `the warehouse is not fresh (${filled.length > 0 ? `rows in ${filled.slice(0, 3).join(", ")}` : `migrated past the backup: ${newer.join(", ")}`}); ` +
          "restore into a new data directory (SHOPSYNC_DATA_DIR) or an empty database (DATABASE_URL)"
      })
    }
  })

/**
 * Restores a backup into a fresh warehouse, in one transaction (a failure leaves it as it was): the schema at the
 * backup's migration level, the rows with user triggers disabled (the daily totals and dirty days come from the
 * backup, taken from the same snapshot), the sequences, then the migrations and models of this version, the
 * read-only role's grants, and the daily totals of any day still dirty. Returns the rows per table, and the logins
 * the backup's warehouse had granted the read-only role that this server lacks: a backup carries no roles.
 */
export const restoreBackup = (file: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const next = yield* lines(file)
    const first = yield* next()
    const header = yield* Schema.decodeUnknown(Schema.parseJson(BackupHeader))(first ?? "").pipe(
      Effect.mapError(() => new BackupFailed({ file, reason: "it is not a shopsync backup (its first line is not a backup header)" }))
    )
    const known = new Set(sqlFolder("migrations").map((m) => m.name))
    const unknown = header.migrations.filter((m) => !known.has(m))
    if (unknown.length > 0) {
      return yield* new BackupFailed({ file, reason: `it was taken by a newer shopsync (migrations ${unknown.join(", ")}); restore it with that version` })
    }
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext('shopsync:migrate'))`
      yield* checkFresh(file, header.migrations)
      yield* migrateTo(header.migrations.at(-1) ?? "")
      const counts = yield* loadSections(file, next)
      for (const s of header.sequences) {
        if (s.value !== null) yield* sql`SELECT setval(${s.name}::regclass, ${s.value}::bigint, true)`
      }
      yield* migrate
      yield* sql`SELECT analytics.refresh_daily_totals(store_id) FROM (SELECT DISTINCT store_id FROM analytics.daily_dirty) d`
      const present = new Set(yield* readerLogins)
      // The backup's logins this server lacks (or that lack the role); undefined: a backup from before it listed them.
      const logins = header.logins?.filter((login) => !present.has(login))
      return { counts, logins }
    }))
  })

/** Every `#table` section of the backup, into the table of the same name with its user triggers off. */
const loadSections = (file: string, next: () => Effect.Effect<string | undefined>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tables = new Map((yield* ourTables).map((t) => [t.name, new Set(t.columns)]))
    const counts: Array<{ table: string; rows: number }> = []
    let line = yield* next()
    while (line !== undefined) {
      if (!line.startsWith(SECTION_PREFIX)) return yield* new BackupFailed({ file, reason: `unexpected line ${line.slice(0, 80)}` })
      const section = yield* Schema.decodeUnknown(Schema.parseJson(TableSection))(line.slice(SECTION_PREFIX.length)).pipe(
        Effect.mapError(() => new BackupFailed({ file, reason: `malformed section line ${line!.slice(0, 80)}` }))
      )
      const target = tables.get(section.name)
      const missing = section.columns.filter((c) => !target?.has(c))
      if (target === undefined || missing.length > 0) {
        return yield* new BackupFailed({ file, reason: `${section.name}${target ? ` (${missing.join(", ")})` : ""} is not in the warehouse at the backup's level` })
      }
      const columns = section.columns.map((c) => `"${c.replaceAll("\"", "\"\"")}"`).join(", ")
      const insert = (json: string) =>
        sql.unsafe(`INSERT INTO ${section.name} (${columns}) OVERRIDING SYSTEM VALUE
                    SELECT ${columns} FROM json_populate_recordset(NULL::${section.name}, $1::json)`, [json])
      yield* sql.unsafe(`ALTER TABLE ${section.name} DISABLE TRIGGER USER`)
      let rows = 0
      let batch: Array<string> = []
      let bytes = 0
      const flush = Effect.suspend(() => {
        if (batch.length === 0) return Effect.void
        const json = `[${batch.join(",")}]`
        batch = []
        bytes = 0
        return Effect.asVoid(insert(json))
      })
      for (line = yield* next(); line !== undefined && !line.startsWith(SECTION_PREFIX); line = yield* next()) {
        batch.push(line)
        bytes += line.length
        rows++
        if (batch.length >= BATCH_ROWS || bytes >= BATCH_BYTES) yield* flush
      }
      yield* flush
      yield* sql.unsafe(`ALTER TABLE ${section.name} ENABLE TRIGGER USER`)
      counts.push({ table: section.name, rows })
    }
    return counts
  })
