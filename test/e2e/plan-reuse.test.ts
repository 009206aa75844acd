// What a sync plans once, not every run: the pool keeps its idle sessions (a new one costs a SCRAM exchange, a cold
// backend and every statement parsed and planned again), and the PL/pgSQL functions every run calls keep one plan
// per session (migration 028: with their arrays' lengths known, PostgreSQL's custom plans always looked cheaper, so
// it planned their statements at every call, a third of the server's planning time in the workers' benchmark).
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sqlRows } from "../support/database.js"
import { type MigratedDatabase, migratedDatabase } from "../support/migrated.js"

describe("plans and sessions a sync reuses", () => {
  let db: MigratedDatabase
  beforeAll(async () => {
    db = await migratedDatabase(1)
  }, 60_000)
  afterAll(() => db?.close())

  const backendPid = () => db.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`))

  it("keeps an idle connection open past pg's default of 10 s", async () => {
    const [before] = await backendPid()
    await new Promise((resolve) => setTimeout(resolve, 11_000))
    const [after] = await backendPid()
    expect(after!.pid).toBe(before!.pid)
  }, 30_000)

  it("plans the statements of the functions every run calls once per session", async () => {
    const functions = [
      "analytics.note_days(analytics.sales_row[], analytics.sales_row[], analytics.sales_row[])",
      "analytics.refresh_daily_totals(text)",
      "sync.begin_run(text, text, text[], bigint, bigint, double precision)",
      "sync.claim_leases(text, text[], bigint, bigint, double precision)"
    ]
    const rows = await sqlRows<{ fn: string; config: string[] | null }>(db.url,
      "SELECT f AS fn, proconfig AS config FROM unnest($1::text[]) AS f JOIN pg_proc p ON p.oid = f::regprocedure", [functions])
    expect(rows.map((r) => [r.fn, r.config])).toEqual(functions.map((fn) => [fn, ["plan_cache_mode=force_generic_plan"]]))
  })
})
