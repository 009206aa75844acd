import type * as SqlClient from "@effect/sql/SqlClient"
import { ManagedRuntime, Redacted } from "effect"
import { pgLayer } from "../../src/warehouse/database.js"
import { migrate } from "../../src/warehouse/migrate.js"
import { freshDatabase } from "./database.js"

/** A new database, migrated, with a runtime on a pool of `connections` to it; `close` ends both. */
export interface MigratedDatabase {
  readonly url: string
  readonly runtime: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>
  readonly close: () => Promise<void>
}

export const migratedDatabase = async (connections: number): Promise<MigratedDatabase> => {
  const db = await freshDatabase()
  const runtime = ManagedRuntime.make(pgLayer(Redacted.make(db.url), connections))
  await runtime.runPromise(migrate)
  return {
    url: db.url,
    runtime,
    close: async () => {
      await runtime.dispose()
      await db.drop()
    }
  }
}
