import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import { storeIdConfig } from "../config/settings.js"
import { Outbox, OutboxLive } from "../contacts/outbox.js"
import { DatabaseLive } from "../warehouse/database.js"
import { migrate } from "../warehouse/migrate.js"
import { STRATEGIES, type StreamName } from "../sync/context.js"
import { RESOURCE_TABLES } from "../sync/resources/streams.js"
import { query } from "../warehouse/writer.js"
import { formatTable } from "./table.js"

/** How a state row's stream reads the store; trash listings and the variations pass belong to their stream. */
const strategyOf = (stream: string): string =>
  STRATEGIES[stream as StreamName] ??
    (stream.endsWith(".trash") ? `the trash listing of ${stream.slice(0, -".trash".length)}` : stream === "variations" ? "full pass of products' variations" : "")

/** The table whose live rows `status` counts for each state row. */
const TABLES: Record<string, string> = {
  orders: "store.orders",
  refunds: "store.refunds",
  products: "store.products",
  variations: "store.product_variations",
  customers: "store.customers",
  reports: "store.sales_report_daily",
  ...RESOURCE_TABLES
}

export const statusCommand = Command.make("status", {}, () =>
  Effect.gen(function*() {
    const storeId = yield* storeIdConfig
    yield* migrate
    const streams = (yield* query<{ stream: string }>("status_streams", [storeId, Object.keys(TABLES), Object.values(TABLES)])).map((row) => ({ ...row, strategy: strategyOf(row.stream) }))
    const runs = yield* query("status_runs", [storeId])
    process.stdout.write(`store ${storeId}\n\n`)
    process.stdout.write(streams.length === 0
      ? "no stream has run yet: run `shopsync sync`\n"
      : `${formatTable(streams, ["stream", "cursor", "rows", "last_rows", "last_started", "last_success", "last_error", "strategy"])}\n`)
    if (runs.length > 0) {
      process.stdout.write(`\nrecent runs\n${formatTable(runs, ["run", "command", "status", "started", "seconds", "rows", "requests", "error"])}\n`)
    }
    const outbox = yield* Outbox
    const counts = yield* outbox.counts(storeId)
    const problems = yield* outbox.problems(storeId)
    process.stdout.write(`\nmarketing outbox\n${formatTable([counts], ["pending", "sent", "failed", "quarantined", "oldest_pending_age"])}\n`)
    if (problems.length > 0) {
      process.stdout.write(`\nquarantined and failed contacts\n${formatTable(problems, ["status", "reason", "contacts", "examples"])}\n`)
    }
  }).pipe(Effect.provide(OutboxLive.pipe(Layer.provideMerge(DatabaseLive))))).pipe(
    Command.withDescription("Shows, per stream, its cursor (or last full pass), the rows the warehouse holds for it, the rows its last run wrote, the last run, the last error and " +
      "how it reads the store; then the recent runs, " +
      "and the marketing outbox: pending, sent, failed and quarantined contacts, the oldest pending one's age, and why contacts are quarantined or failed.")
  )
