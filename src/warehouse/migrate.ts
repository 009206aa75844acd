import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { sqlFile, sqlFolder } from "./sql-files.js"

/**
 * Applies `sql/migrations/NNN_*.sql` in order, each once and in its own transaction, then
 * (re)creates the analytics views of `sql/analytics/`. Safe to run concurrently: an advisory
 * lock serialises migrators.
 */
export const migrate = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql.unsafe(sqlFile("queries/migration_lock"))
    yield* sql.unsafe(sqlFile("queries/migrations_table"))
    const applied = new Set((yield* sql.unsafe<{ version: string }>("SELECT version FROM public.shopsync_migrations")).map((r) => r.version))
    const pending = sqlFolder("migrations").filter((m) => !applied.has(m.name))
    for (const m of pending) {
      yield* Effect.logInfo(`migrate: applying ${m.name}`)
      yield* sql.unsafe(m.text)
      yield* sql.unsafe(sqlFile("queries/migration_record"), [m.name])
    }
    for (const view of sqlFolder("analytics")) yield* sql.unsafe(view.text)
    return { applied: pending.map((m) => m.name), total: applied.size + pending.length }
  }))
})
