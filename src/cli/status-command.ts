import * as fs from "node:fs"
import * as path from "node:path"
import { Command, Options } from "@effect/cli"
import * as SqlClient from "@effect/sql/SqlClient"
import { Data, Effect, Layer, Option } from "effect"
import { databaseUrlConfig } from "../config/settings.js"
import { Outbox } from "../contacts/outbox.js"
import { storeReaders } from "../jobs/layers.js"
import { CATALOGUE, STATE_ROWS, STREAMS } from "../sync/catalogue.js"
import { Reconciliations } from "../sync/reconcile/record.js"
import { Runs } from "../sync/runs.js"
import { SyncState } from "../sync/state.js"
import { DatabaseLive } from "../warehouse/database.js"
import { embeddedLocation } from "../warehouse/embedded-control.js"
import { migrate } from "../warehouse/migrate.js"
import { Quarantine } from "../warehouse/quarantine.js"
import { forStore } from "./errors.js"
import { shopsyncCommand } from "./invocation.js"
import { type StatusFacts, statusText, statusWide } from "./status-text.js"
import { isoUtc } from "./timestamps.js"

const STRATEGY: Readonly<Record<string, string>> = {
  ...Object.fromEntries(STREAMS.map((name) => [name, CATALOGUE[name].strategy])),
  ...Object.fromEntries(Object.entries(STATE_ROWS).map(([row, r]) => [row, r.strategy]))
}

/**
 * The table whose rows count for each stream. The trash listings' and deletion checks' rows are their stream's,
 * counted on its line (not again on theirs).
 */
const TABLES = Object.fromEntries(STREAMS.map((name) => [name, CATALOGUE[name].table]))

/** The products stream writes the variations of the products that changed: its rows count them, as its written rows do. */
const withVariations = (streams: StatusFacts["streams"]): StatusFacts["streams"] => {
  const variations = streams.find((s) => s.stream === "variations")?.rows
  return streams.map((s) =>
    s.stream === "products" && variations !== undefined && variations !== "" && s.rows !== ""
      ? { ...s, rows: String(Number(s.rows) + Number(variations)) }
      : s
  )
}

/** `status` before anything made a warehouse: nothing to show, and nothing is created to show it. */
class NoWarehouse extends Data.TaggedError("NoWarehouse")<{ readonly where: string }> {
  override get message() {
    const shopsync = shopsyncCommand()
    return `no warehouse yet (${this.where}), so no store has been synced: \`${shopsync} sync\` syncs your store ` +
      `(STORE_API_URL…), \`${shopsync} demo\` a simulated one, and \`${shopsync} migrate\` creates the empty warehouse`
  }
}

/** The embedded warehouse's data directory must exist already: starting the server for `status` would create it (initdb). */
const embeddedExists = Effect.gen(function*() {
  if (Option.isSome(yield* databaseUrlConfig)) return
  const { dataDir } = yield* embeddedLocation
  if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) yield* new NoWarehouse({ where: `the embedded one would live in ${dataDir}, SHOPSYNC_DATA_DIR` })
})

/** A database (DATABASE_URL) shopsync never migrated holds no warehouse: `status` does not create its schemas. */
const migratedBefore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ migrated: boolean }>`SELECT to_regclass('public.shopsync_migrations') IS NOT NULL AS migrated`
  if (row?.migrated !== true) yield* new NoWarehouse({ where: "the database holds none of shopsync's tables" })
})

const gather = (store: string) =>
  Effect.gen(function*() {
    yield* migratedBefore
    yield* migrate
    const streams = (yield* Effect.flatMap(SyncState, (state) => state.status(TABLES))).map((row) => ({ ...row, strategy: STRATEGY[row.stream] ?? "" }))
    const runs = yield* Runs
    const quarantine = yield* Quarantine
    const outbox = yield* Outbox
    return {
      store,
      streams: withVariations(streams),
      runs: yield* runs.recent(5),
      otherStores: streams.length === 0 ? yield* runs.stores : [],
      quarantine: { documents: yield* quarantine.list, cleaned: yield* quarantine.cleanedCounts },
      outbox: { counts: yield* outbox.counts(store), problems: yield* outbox.problems(store) },
      reconciliation: yield* Effect.flatMap(Reconciliations, (r) => r.last)
    } satisfies StatusFacts
  })

const count = (text: string | null) => (text === null || text === "" ? null : Number(text))

/** The JSON document of `status --json`: the same facts, numbers as numbers, times ISO 8601 UTC, absent values as null. */
const statusJson = (facts: StatusFacts) => ({
  store: facts.store,
  streams: facts.streams.map((s) => ({
    ...s, rows: count(s.rows), last_rows: count(s.last_rows), last_started: isoUtc(s.last_started), last_success: isoUtc(s.last_success),
    last_error: s.last_error === "" ? null : s.last_error
  })),
  runs: facts.runs.map((r) => ({
    ...r, run: Number(r.run), started: isoUtc(r.started), seconds: Number(r.seconds), rows: Number(r.rows), requests: Number(r.requests),
    error: r.error === "" ? null : r.error
  })),
  other_stores: facts.otherStores.map((o) => ({ ...o, last_started: isoUtc(o.last_started) })),
  quarantine: { ...facts.quarantine, documents: facts.quarantine.documents.map((d) => ({ ...d, first_seen: isoUtc(d.first_seen) })) },
  outbox: facts.outbox,
  reconciliation: facts.reconciliation === undefined
    ? null
    : { ...facts.reconciliation, started: isoUtc(facts.reconciliation.started), finished: isoUtc(facts.reconciliation.finished) }
})

const json = Options.boolean("json").pipe(
  Options.withDescription("print the same facts as one JSON document on stdout, for scripts and monitors (times ISO 8601 in UTC, 2026-11-26T17:22:36Z)")
)
const wide = Options.boolean("wide").pipe(
  Options.withDescription("show every column and whole texts (last success, full errors, how each stream reads the store); wider than 100 columns")
)

export const statusCommand = Command.make("status", { json, wide }, (o) =>
  forStore("status", (store) =>
    Effect.zipRight(embeddedExists, gather(store).pipe(
      Effect.map((facts) => process.stdout.write(`${o.json ? JSON.stringify(statusJson(facts)) : o.wide ? statusWide(facts) : statusText(facts)}\n`)),
      Effect.provide(Layer.merge(Outbox.Default, storeReaders(store))),
      Effect.provide(DatabaseLive)
    )))).pipe(
    Command.withDescription(
      "Shows where the configured store (STORE_ID) stands. In 100 columns: per stream its cursor (or last full pass), the rows the " +
        "warehouse holds, the rows its last run wrote, when it last ran and how that went, with errors on lines of their own; then the " +
        "recent runs and their outcome, the last reconciliation (verify) and the drift it found, quarantined store documents, and the marketing outbox (pending, sent, failed, quarantined " +
        "contacts and why). --wide adds every column and how each stream reads the store; --json prints it all as one JSON document."
    )
  )
