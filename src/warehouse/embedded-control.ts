import * as fs from "node:fs"
import * as path from "node:path"
import { Data, Effect, Option } from "effect"
import { embeddedConfig } from "../config/settings.js"
import { credentialsFile, readCredentials } from "./credentials.js"
import { embeddedUrl, pgLayer, WAREHOUSE_DATABASE } from "./database.js"
import { asStartFailure, defaultDataDir, type EmbeddedServer, makeServerReachable, othersGone, prepareDataDir, runningCredentials, serverOf } from "./embedded.js"
import { setupDatabase, withSuperuser } from "./embedded-setup.js"
import { migrate } from "./migrate.js"
import { isDetached, runningServer, serverLog, startDetached, stopServer } from "./server-process.js"

/** A `warehouse` subcommand could not do what was asked: what is wrong, and what to do about it. */
export class WarehouseCommandFailed extends Data.TaggedError("WarehouseCommandFailed")<{
  readonly problem: string
  readonly fix: string
}> {
  override get message() {
    return `${this.problem}; ${this.fix}`
  }
}

/** Where the embedded warehouse lives (SHOPSYNC_DATA_DIR) and the port it takes when started (SHOPSYNC_PG_PORT). */
export const embeddedLocation = Effect.map(embeddedConfig, ({ dataDir, port }) => ({
  dataDir: defaultDataDir("postgres", Option.getOrUndefined(dataDir)),
  port
}))

const startedByCommand = (dataDir: string, pid: number) =>
  new WarehouseCommandFailed({
    problem: `the embedded PostgreSQL in ${dataDir} runs for a shopsync command (server process ${pid}), which stops it when it ends`,
    fix: "wait for that command to end, then run `shopsync warehouse start`"
  })

/**
 * Starts the embedded server detached (it outlives this process, for BI tools and psql), sets up its roles and
 * database and migrates it, so the views are there to query. Commands run meanwhile join it and leave it running.
 */
export const startWarehouse = Effect.gen(function*() {
  const { dataDir, port } = yield* embeddedLocation
  yield* makeServerReachable(dataDir)
  const running = runningServer(dataDir)
  if (running !== undefined) {
    if (!isDetached(dataDir, running)) return yield* startedByCommand(dataDir, running.pid)
    return { server: serverOf(dataDir, running.port, yield* runningCredentials(dataDir), false), started: false }
  }
  const credentials = yield* prepareDataDir(dataDir)
  yield* asStartFailure(dataDir, startDetached(dataDir, port))
  const server = serverOf(dataDir, port, credentials, true)
  yield* setupDatabase(server, credentials.ownerPassword, WAREHOUSE_DATABASE)
  yield* migrate.pipe(Effect.provide(pgLayer(embeddedUrl(server, "owner"))))
  return { server, started: true }
})

/** Stops a server `warehouse start` left running, once other shopsync commands using it are done. */
export const stopWarehouse = Effect.gen(function*() {
  const { dataDir } = yield* embeddedLocation
  const running = runningServer(dataDir)
  if (running === undefined) return false
  if (!isDetached(dataDir, running)) return yield* startedByCommand(dataDir, running.pid)
  const credentials = yield* runningCredentials(dataDir)
  yield* othersGone(serverOf(dataDir, running.port, credentials, false))
  yield* stopServer(dataDir, running)
  return true
})

const databaseSize = (server: EmbeddedServer) =>
  Effect.tryPromise(() =>
    withSuperuser(server, "postgres", async (client) => {
      const { rows } = await client.query<{ size: string | null }>(
        "SELECT pg_catalog.pg_size_pretty(pg_catalog.pg_database_size(datname)) AS size FROM pg_catalog.pg_database WHERE datname = $1", [WAREHOUSE_DATABASE]
      )
      return rows[0]?.size ?? "not created yet"
    }, "shopsync-status")).pipe(Effect.catchAll((e) => Effect.succeed(`unknown (${e.message})`)))

/** Bytes under a directory (the data directory of a stopped server). */
const sizeOnDisk = (dir: string): number =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const p = path.join(dir, entry.name)
    return sum + (entry.isDirectory() ? sizeOnDisk(p) : entry.isFile() ? fs.statSync(p).size : 0)
  }, 0)

/** What `warehouse status` reports about the embedded server, as label/value pairs. */
export const embeddedStatus = Effect.gen(function*() {
  const { dataDir, port } = yield* embeddedLocation
  const running = runningServer(dataDir)
  const initialised = fs.existsSync(path.join(dataDir, "PG_VERSION"))
  const credentials = yield* readCredentials(dataDir)
  const lines: Array<[string, string]> = [
    ["server", running === undefined
      ? "not running"
      : `running (process ${running.pid}, ${isDetached(dataDir, running) ? "started by `shopsync warehouse start`" : "for a running shopsync command"})`],
    ["port", running === undefined ? `${port} (when started)` : String(running.port)],
    ["data directory", initialised ? dataDir : `${dataDir} (not created yet)`],
    ["credentials", credentials === undefined ? "none yet" : credentialsFile(dataDir)]
  ]
  if (running !== undefined && credentials !== undefined) {
    lines.push([`database ${WAREHOUSE_DATABASE}`, yield* databaseSize(serverOf(dataDir, running.port, credentials, false))])
  } else if (initialised) {
    lines.push(["size on disk", `${Math.round(sizeOnDisk(dataDir) / 1024 / 1024)} MB (all databases)`])
  }
  if (running !== undefined && isDetached(dataDir, running)) lines.push(["server log", serverLog(dataDir)])
  return { running: running !== undefined, lines }
})
