import * as fs from "node:fs"
import { Effect, Exit, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { credentialsFile } from "../../src/warehouse/credentials.js"
import { defaultDataDir, embeddedPostgres } from "../../src/warehouse/embedded.js"
import { freePort } from "./ports.js"

/**
 * One embedded PostgreSQL for the whole test run, in a data directory of its own (so concurrent runs
 * never share a server), removed afterwards; test files create their own databases on it.
 */
const startServer = async () => {
  const scope = Effect.runSync(Scope.make())
  const dataDir = defaultDataDir(`test-postgres-${process.pid}`)
  const server = await Effect.runPromise(
    embeddedPostgres({ dataDir, port: await freePort() }).pipe(Scope.extend(scope))
  )
  return {
    adminUrl: `postgres://${server.user}:${server.password}@127.0.0.1:${server.port}/postgres`,
    stop: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      fs.rmSync(dataDir, { recursive: true, force: true })
      fs.rmSync(credentialsFile(dataDir), { force: true })
    }
  }
}

// The projects that need it (e2e, cluster, real-woo) run this setup in the same process, all before the first test
// file: the first starts the server, the others share it, and the last teardown stops it.
const shared = globalThis as { shopsyncTestPostgres?: { server: ReturnType<typeof startServer>; users: number } }

export default async function setup(project: TestProject) {
  shared.shopsyncTestPostgres ??= { server: startServer(), users: 0 }
  const entry = shared.shopsyncTestPostgres
  entry.users++
  project.provide("pgAdminUrl", (await entry.server).adminUrl)
  return async () => {
    if (--entry.users > 0) return
    delete shared.shopsyncTestPostgres
    await (await entry.server).stop()
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string
  }
}
