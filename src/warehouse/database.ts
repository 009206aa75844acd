import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer, Option, Redacted } from "effect"
import pg from "pg"
import { databaseUrlConfig, embeddedConfig } from "../config/settings.js"
import { defaultDataDir, type EmbeddedServer, embeddedPostgres } from "./embedded.js"
import { setupDatabase, SUPERUSER_OPTIONS } from "./embedded-setup.js"

/**
 * Dates and timestamps come back as the server's text: a `date` parsed into a JS Date
 * would shift by the process's timezone, and a day bucket must never move.
 */
const TEXT_TYPES = new Set([1082, 1114, 1184])
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    TEXT_TYPES.has(oid) ? (v: string) => v : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
}

/** The SQL client for a PostgreSQL URL (a pool of `maxConnections`). */
export const pgLayer = (url: Redacted.Redacted<string>, maxConnections = 6) =>
  PgClient.layer({ url, types, maxConnections, applicationName: "shopsync" })

/** Which warehouse a command uses, for the one line that says so. */
export const describeDatabase = (url: Redacted.Redacted<string>): string => {
  const u = new URL(Redacted.value(url))
  return `${u.hostname}:${u.port || 5432}${u.pathname}`
}

/** The embedded server's database. */
export const WAREHOUSE_DATABASE = "shopsync"

/** The URL of `role` on the embedded server's `database`; the superuser's pins its search_path (SUPERUSER_OPTIONS). */
export const embeddedUrl = (server: EmbeddedServer, role: "owner" | "superuser", database = WAREHOUSE_DATABASE) => {
  const { user, password } = role === "owner" ? server.owner : server
  const options = role === "superuser" ? `?options=${encodeURIComponent(SUPERUSER_OPTIONS)}` : ""
  return Redacted.make(`postgres://${user}:${password}@127.0.0.1:${server.port}/${database}${options}`)
}

/** The embedded server, started (or joined) for the scope's lifetime, its roles and database set up. */
export const embeddedWarehouse = Effect.gen(function*() {
  const { port, dataDir } = yield* embeddedConfig
  const server = yield* embeddedPostgres({ dataDir: defaultDataDir("postgres", Option.getOrUndefined(dataDir)), port })
  yield* setupDatabase(server, server.owner.password, WAREHOUSE_DATABASE)
  yield* Effect.logInfo(
    `warehouse: embedded PostgreSQL in ${server.dataDir} on port ${server.port}` +
      (server.ownedByUs ? "" : " (already running, joined)")
  )
  return server
})

/** The warehouse connection: DATABASE_URL when set, else the embedded PostgreSQL. */
export const DatabaseLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const configured = yield* databaseUrlConfig
    if (Option.isSome(configured)) {
      yield* Effect.logInfo(`warehouse: PostgreSQL at ${describeDatabase(configured.value)} (DATABASE_URL)`)
      return pgLayer(configured.value)
    }
    return pgLayer(embeddedUrl(yield* embeddedWarehouse, "owner"))
  })
)
