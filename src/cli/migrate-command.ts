import { Command } from "@effect/cli"
import { Effect } from "effect"
import { DatabaseLive } from "../warehouse/database.js"
import { migrate } from "../warehouse/migrate.js"
import { READER, READER_SQL } from "../warehouse/reader-role.js"

export const migrateCommand = Command.make("migrate", {}, () =>
  Effect.gen(function*() {
    const result = yield* migrate
    process.stdout.write(
      result.applied.length > 0
        ? `applied ${result.applied.length} migration(s): ${result.applied.join(", ")}; analytics views refreshed\n`
        : `schema up to date (${result.total} migration(s)); analytics views ${result.modelsRefreshed ? "refreshed" : "up to date"}\n`
    )
    if (!result.reader) process.stdout.write(`no read-only role: this user may not create ${READER}; have a superuser run ${READER_SQL} then run migrate again\n`)
  }).pipe(Effect.provide(DatabaseLive))).pipe(
    Command.withDescription(
      "Creates or upgrades the warehouse schema and the analytics views. Applies sql/migrations, then (re)creates the views and " +
        "functions of sql/models. Idempotent; sync and status also do it."
    )
  )
