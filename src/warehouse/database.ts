import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer, Option, Redacted } from "effect"
import pg from "pg"
import { databaseUrlConfig, embeddedConfig } from "../config/settings.js"
import { defaultDataDir, embeddedPostgres } from "./embedded.js"

/**
 * Dates and timestamps come back as the server's text: a `date` parsed into a JS Date
 * would shift by the process's timezone, and a day bucket must never move.
 */
const TEXT_TYPES = new Set([1082, 1114, 1184])
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    TEXT_TYPES.has(oid) ? (v: string) => v : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
}

/** The SQL client for a PostgreSQL URL. */
export const pgLayer = (url: Redacted.Redacted<string>) =>
  PgClient.layer({ url, types, maxConnections: 6, applicationName: "shopsync" })

/** Which warehouse a command uses, for the one line that says so. */
const describeDatabase = (url: Redacted.Redacted<string>): string => {
  const u = new URL(Redacted.value(url))
  return `${u.hostname}:${u.port || 5432}${u.pathname}`
}

const ensureDatabase = (server: { port: number; user: string; password: string }, name: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ host: "127.0.0.1", port: server.port, user: server.user, password: server.password, database: "postgres" })
    await client.connect()
    try {
      const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])
      if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`)
    } finally {
      await client.end()
    }
  })

/** The embedded server's URL for `database`, started for the scope's lifetime. */
const embeddedDatabaseUrl = (database: string) =>
  Effect.gen(function*() {
    const { port, dataDir } = yield* embeddedConfig
    const server = yield* embeddedPostgres({ dataDir: defaultDataDir("postgres", Option.getOrUndefined(dataDir)), port })
    yield* ensureDatabase(server, database)
    yield* Effect.logInfo(
      `warehouse: embedded PostgreSQL in ${server.dataDir} on port ${server.port}` +
        (server.ownedByUs ? "" : " (already running, joined)")
    )
    return Redacted.make(`postgres://${server.user}:${server.password}@127.0.0.1:${server.port}/${database}`)
  })

/** The warehouse connection: DATABASE_URL when set, else the embedded PostgreSQL. */
export const DatabaseLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const configured = yield* databaseUrlConfig
    if (Option.isSome(configured)) {
      yield* Effect.logInfo(`warehouse: PostgreSQL at ${describeDatabase(configured.value)} (DATABASE_URL)`)
      return pgLayer(configured.value)
    }
    return pgLayer(yield* embeddedDatabaseUrl("shopsync"))
  })
)
