import * as fs from "node:fs"
import EmbeddedPostgres from "../../src/warehouse/embedded-postgres.js"
import { defaultDataDir } from "../../src/warehouse/embedded.js"
import { freePort } from "./ports.js"

/** A PostgreSQL a test can stop and start under a running sync: its own data directory, port and superuser. */
export interface OwnPostgres {
  readonly server: InstanceType<typeof EmbeddedPostgres>
  /** The superuser's URL of the `postgres` database. */
  readonly url: string
  /** Stops it and removes its data directory. */
  readonly remove: () => Promise<void>
}

export const startOwnPostgres = async (name: string): Promise<OwnPostgres> => {
  const dataDir = defaultDataDir(`test-${name}-${process.pid}`)
  const port = await freePort()
  const password = `${name}-test`
  const server = new EmbeddedPostgres({
    databaseDir: dataDir, port, user: "postgres", password, persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--locale=C", "--encoding=UTF8", "--lc-messages=C"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: () => undefined, onError: () => undefined
  })
  await server.initialise()
  await server.start()
  return {
    server,
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    remove: async () => {
      await server.stop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
