import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Duration, Effect, Layer, Option, Redacted, type Scope } from "effect"
import pg from "pg"
import { databaseUrlConfig, embeddedConfig, warehouseRetryConfig } from "../config/settings.js"
import { defaultDataDir, type EmbeddedServer, embeddedPostgres } from "./embedded.js"
import { setupDatabase, SUPERUSER_OPTIONS } from "./embedded-setup.js"
import { PreparedClient } from "./prepared-client.js"
import { retryStartup } from "./reconnect.js"

/**
 * Dates and timestamps come back as the server's text: a `date` parsed into a JS Date
 * would shift by the process's timezone, and a day bucket must never move.
 */
const TEXT_TYPES = new Set([1082, 1114, 1184])
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    TEXT_TYPES.has(oid) ? (v: string) => v : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
}

/**
 * How long an idle connection stays open. A new session costs both sides a SCRAM exchange, the server a backend with
 * cold caches, and every statement its parse and plans again (the session alone: about 6 ms of CPU on each side).
 * With pg's default of 10 s, a host whose syncs are more than 10 s apart opened new sessions for every sync.
 */
const IDLE_MS = 5 * 60_000

/**
 * A pool of `max` connections to `url` whose clients keep their statements prepared (PreparedClient), checked with a
 * first `SELECT 1` within 5 s (as PgClient.make does), ended with the scope.
 */
const pool = (url: Redacted.Redacted<string>, max: number) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const created = new pg.Pool({
        connectionString: Redacted.value(url), max, types, application_name: "shopsync", Client: PreparedClient, idleTimeoutMillis: IDLE_MS
      })
      created.on("error", () => {})
      return Effect.tryPromise({
        try: () => created.query("SELECT 1"),
        catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(
        Effect.timeoutFail({ duration: Duration.seconds(5), onTimeout: () => new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" }) }),
        Effect.tapError(() => Effect.promise(() => created.end())),
        Effect.as(created)
      )
    }),
    (p) => Effect.promise(() => p.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
  )

const pgClient = (url: Redacted.Redacted<string>, maxConnections: number) =>
  PgClient.fromPool({ acquire: pool(url, maxConnections), applicationName: "shopsync", types })

/** A client as the layer of PgClient and SqlClient. */
const clientLayer = <E>(client: Effect.Effect<PgClient.PgClient, E, Scope.Scope | Reactivity.Reactivity>) =>
  Layer.scopedContext(Effect.map(client, (c) => Context.make(PgClient.PgClient, c).pipe(Context.add(SqlClient.SqlClient, c)))).pipe(
    Layer.provide(Reactivity.layer)
  )

/** The SQL client for a PostgreSQL URL (a pool of `maxConnections`). */
export const pgLayer = (url: Redacted.Redacted<string>, maxConnections = 6) => clientLayer(pgClient(url, maxConnections))

/**
 * pgLayer for a run: the client connects when built (a `SELECT 1`), so a warehouse down or restarting as the run
 * starts would fail it at once; it is waited for within `retrySeconds` instead, like a loss later in the run.
 */
const pgLayerWaiting = (url: Redacted.Redacted<string>, retrySeconds: number) => clientLayer(pgClient(url, 6).pipe(retryStartup(retrySeconds)))

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

type Client<E> = Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, E>

/** The warehouse connection: DATABASE_URL when set (through `connect`), else the embedded PostgreSQL. */
const warehouseLayer = <E>(connect: (url: Redacted.Redacted<string>) => Client<E>) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const configured = yield* databaseUrlConfig
      if (Option.isSome(configured)) {
        yield* Effect.logInfo(`warehouse: PostgreSQL at ${describeDatabase(configured.value)} (DATABASE_URL)`)
        return connect(configured.value) as Client<E | SqlError>
      }
      return pgLayer(embeddedUrl(yield* embeddedWarehouse, "owner")) as Client<E | SqlError>
    })
  )

/** The warehouse connection: DATABASE_URL when set, else the embedded PostgreSQL. */
export const DatabaseLive = warehouseLayer((url) => pgLayer(url))

/**
 * DatabaseLive for a sync or backfill: a DATABASE_URL server that is down or restarting is waited for within
 * SHOPSYNC_WAREHOUSE_RETRY_SECONDS (cron may start a run during a restart). The embedded server is started by the
 * command itself: nothing to wait for. Interactive commands keep DatabaseLive, which fails at once.
 */
export const RunDatabaseLive = Layer.unwrapEffect(Effect.map(warehouseRetryConfig, (seconds) => warehouseLayer((url) => pgLayerWaiting(url, seconds))))
