import { Command } from "@effect/cli"
import { Effect } from "effect"
import { storeIdConfig } from "../config/settings.js"
import { DatabaseLive } from "../warehouse/database.js"
import { migrate } from "../warehouse/migrate.js"
import { query } from "../warehouse/writer.js"
import { formatTable } from "./table.js"

export const statusCommand = Command.make("status", {}, () =>
  Effect.gen(function*() {
    const storeId = yield* storeIdConfig
    yield* migrate
    const streams = yield* query("status_streams", [storeId])
    const runs = yield* query("status_runs", [storeId])
    process.stdout.write(`store ${storeId}\n\n`)
    process.stdout.write(streams.length === 0
      ? "no stream has run yet: run `shopsync sync`\n"
      : `${formatTable(streams, ["stream", "cursor", "lag", "rows_total", "last_rows", "last_started", "last_success", "last_error"])}\n`)
    if (runs.length > 0) {
      process.stdout.write(`\nrecent runs\n${formatTable(runs, ["run", "command", "status", "started", "seconds", "rows", "requests", "error"])}\n`)
    }
    const [outbox] = yield* query("marketing_status", [storeId])
    const problems = yield* query("marketing_problems", [storeId])
    process.stdout.write(`\nmarketing outbox\n${formatTable(outbox ? [outbox] : [], ["pending", "sent", "failed", "quarantined", "oldest_pending_age"])}\n`)
    if (problems.length > 0) {
      process.stdout.write(`\nquarantined and failed contacts\n${formatTable(problems, ["status", "reason", "contacts", "examples"])}\n`)
    }
  }).pipe(Effect.provide(DatabaseLive))).pipe(
    Command.withDescription("Shows, per stream, its cursor, how far it lags the present, rows loaded, the last run and the last error; then the recent runs, " +
      "and the marketing outbox: pending, sent, failed and quarantined contacts, the oldest pending one's age, and why contacts are quarantined or failed.")
  )
