import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import { storeIdConfig } from "../config/settings.js"
import { Outbox, OutboxLive } from "../contacts/outbox.js"
import { DatabaseLive } from "../warehouse/database.js"
import { migrate } from "../warehouse/migrate.js"
import { Quarantine, QuarantineLive } from "../warehouse/quarantine.js"
import { CATALOGUE, STATE_ROWS, STREAMS } from "../sync/catalogue.js"
import { Runs, RunsLive } from "../sync/runs.js"
import { SyncState, SyncStateLive } from "../sync/state.js"
import { formatTable } from "./table.js"

/** Every state row's table and strategy: the streams', then their trash listings' and the variations pass's. */
const ROWS: Readonly<Record<string, { readonly table: string; readonly strategy: string }>> = {
  ...Object.fromEntries(STREAMS.map((name) => [name, CATALOGUE[name]])),
  ...STATE_ROWS
}

export const statusCommand = Command.make("status", {}, () =>
  Effect.gen(function*() {
    const storeId = yield* storeIdConfig
    yield* migrate
    const tables = Object.fromEntries(Object.entries(ROWS).map(([row, r]) => [row, r.table]))
    const streams = (yield* Effect.flatMap(SyncState, (state) => state.status(tables))).map((row) => ({ ...row, strategy: ROWS[row.stream]?.strategy ?? "" }))
    const runs = yield* Effect.flatMap(Runs, (r) => r.recent)
    process.stdout.write(`store ${storeId}\n\n`)
    process.stdout.write(streams.length === 0
      ? "no stream has run yet: run `shopsync sync`\n"
      : `${formatTable(streams, ["stream", "cursor", "rows", "last_rows", "last_started", "last_success", "last_error", "strategy"])}\n`)
    if (runs.length > 0) {
      process.stdout.write(`\nrecent runs\n${formatTable(runs, ["run", "command", "status", "started", "seconds", "rows", "requests", "error"])}\n`)
    }
    const quarantine = yield* Quarantine
    const held = yield* quarantine.list
    const cleaned = yield* quarantine.cleanedCounts
    if (held.length > 0) process.stdout.write(`\nquarantined documents: ${held.length}\n${formatTable(held, ["stream", "id", "kind", "reason", "attempts", "first_seen"])}\n`)
    if (cleaned.length > 0) process.stdout.write(`\ndocuments stored without their NUL characters\n${formatTable(cleaned, ["stream", "documents"])}\n`)
    const outbox = yield* Outbox
    const counts = yield* outbox.counts(storeId)
    const problems = yield* outbox.problems(storeId)
    process.stdout.write(`\nmarketing outbox\n${formatTable([counts], ["pending", "sent", "failed", "quarantined", "oldest_pending_age"])}\n`)
    if (problems.length > 0) {
      process.stdout.write(`\nquarantined and failed contacts\n${formatTable(problems, ["status", "reason", "contacts", "examples"])}\n`)
    }
  }).pipe(
    Effect.provide(Layer.unwrapEffect(Effect.map(storeIdConfig, (storeId) => Layer.mergeAll(OutboxLive, SyncStateLive(storeId), RunsLive(storeId), QuarantineLive(storeId))))),
    Effect.provide(DatabaseLive)
  )).pipe(
    Command.withDescription("Shows what the warehouse holds for the store and how the last runs went. Per stream, its cursor (or last full pass), the rows the warehouse holds for it, the rows its last run wrote, the last run, the last error and " +
      "how it reads the store; then the recent runs, the quarantined documents (stream, id, why, attempts, first seen) and how many were stored without NUL characters, " +
      "and the marketing outbox: pending, sent, failed and quarantined contacts, the oldest pending one's age, and why contacts are quarantined or failed.")
  )
