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
export default async function setup(project: TestProject) {
  const scope = Effect.runSync(Scope.make())
  // Each vitest project runs this setup in the same process: the project's name keeps their servers apart.
  const dataDir = defaultDataDir(`test-postgres-${process.pid}-${project.name}`)
  const server = await Effect.runPromise(
    embeddedPostgres({ dataDir, port: await freePort() }).pipe(Scope.extend(scope))
  )
  project.provide("pgAdminUrl", `postgres://${server.user}:${server.password}@127.0.0.1:${server.port}/postgres`)
  return async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(credentialsFile(dataDir), { force: true })
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string
  }
}
