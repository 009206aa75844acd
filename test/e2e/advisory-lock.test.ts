// A session-level advisory lock is held on a reserved pooled connection (src/warehouse/advisory-lock.ts), which gives
// its locks back (pg_advisory_unlock_all) as its scope closes. When that unlock fails (a loaded machine, a run
// interrupted mid-statement), the session must not go back to the pool holding it: every later run of the store
// would wait for it and be skipped until that connection closed.
import { randomBytes } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tryAdvisoryLock } from "../../src/warehouse/advisory-lock.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { freshDatabase, sqlRows } from "../support/database.js"
import { waitFor } from "../support/wait.js"

describe("an advisory lock whose unlock fails", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  const role = `lock_${randomBytes(4).toString("hex")}`
  beforeAll(async () => {
    db = await freshDatabase()
    await sqlRows(db.url, `CREATE ROLE ${role} LOGIN PASSWORD 'lock-test'`)
    // The role may take advisory locks but not give them back in this database.
    await sqlRows(db.url, "REVOKE EXECUTE ON FUNCTION pg_advisory_unlock_all() FROM PUBLIC")
  }, 60_000)
  afterAll(async () => {
    await db?.drop()
    if (db) await sqlRows(db.url.replace(/\/[^/]+$/, "/postgres"), `DROP ROLE IF EXISTS ${role}`)
  })

  it("ends the session that held it: the lock is free again while the pool lives on", async () => {
    const url = new URL(db.url)
    url.username = role
    url.password = "lock-test"
    const runtime = ManagedRuntime.make(pgLayer(Redacted.make(url.toString()), 2))
    // A busy process (a worker's other runs) keeps reusing its pooled connections: none is closed for being idle.
    const busy = setInterval(() => void runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`)).catch(() => undefined), 200)
    try {
      expect(await runtime.runPromise(Effect.scoped(tryAdvisoryLock("shopsync:test", "one")))).toBe(true)
      const free = () => sqlRows<{ locked: boolean }>(db.url, "SELECT pg_try_advisory_lock(hashtext('shopsync:test'), hashtext('one')) AS locked")
      expect(await waitFor("the lock given back", async () => ((await free())[0]!.locked ? true : undefined), 15_000, 200)).toBe(true)
      // The pool still serves: the next run takes the lock on another session.
      expect(await runtime.runPromise(Effect.scoped(tryAdvisoryLock("shopsync:test", "two")))).toBe(true)
    } finally {
      clearInterval(busy)
      await runtime.dispose()
    }
  })
})
