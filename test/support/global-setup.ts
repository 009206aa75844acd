import * as net from "node:net"
import { Effect, Exit, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { defaultDataDir, embeddedPostgres } from "../../src/warehouse/embedded.js"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.on("error", reject)
  })

/** One embedded PostgreSQL for the whole test run (its own data directory); files create their own databases. */
export default async function setup(project: TestProject) {
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(
    embeddedPostgres({ dataDir: defaultDataDir("test-postgres"), port: await freePort() }).pipe(Scope.extend(scope))
  )
  project.provide("pgAdminUrl", `postgres://${server.user}:${server.password}@127.0.0.1:${server.port}/postgres`)
  return async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string
  }
}
