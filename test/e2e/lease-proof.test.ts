// Every write of a run proves its lease: a run's one-statement writes (its streams' standings, checkpoints, pass
// progress, the store's report, orphans, unlisted rows) and its transactions (a page of a list, any other) alike write while the lease names the run, and write nothing
// but stop the run once it names another run or none; outside a run they write unguarded.
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { storeWarehouse } from "../../src/jobs/layers.js"
import { SyncState } from "../../src/sync/state.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { fenced, fencedStatement, type Guard, withGuard } from "../../src/warehouse/lease.js"
import { Loader } from "../../src/warehouse/loader.js"
import { migrate } from "../../src/warehouse/migrate.js"
import { Scopes } from "../../src/warehouse/scopes.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const STORE = "lease-t"

class Lost extends Error {}

describe("the lease's proof in every write of a run", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let runtime: ManagedRuntime.ManagedRuntime<SyncState | Scopes | Loader | SqlClient.SqlClient, unknown>
  let run = 0
  beforeAll(async () => {
    db = await freshDatabase()
    const base = pgLayer(Redacted.make(db.url), 2)
    await Effect.runPromise(migrate.pipe(Effect.provide(base)))
    runtime = ManagedRuntime.make(storeWarehouse(STORE).pipe(Layer.provideMerge(base)))
    const [row] = await sqlRows<{ id: string }>(db.url, "INSERT INTO sync.runs (store_id, command, streams) VALUES ($1, 'sync', '{}') RETURNING id", [STORE])
    run = Number(row!.id)
    await sqlRows(db.url, "INSERT INTO sync.run_leases (store_id, lock, holder) VALUES ($1, 'sync', $2)", [STORE, run])
  }, 60_000)
  afterAll(async () => {
    await runtime?.dispose()
    await db?.drop()
  })

  const lostReasons: string[] = []
  const guard = (): Guard => ({
    storeId: STORE, lock: "sync", token: run, retry: (effect) => effect,
    lost: (reason) => Effect.sync(() => lostReasons.push(reason)).pipe(Effect.zipRight(Effect.die(new Lost(reason))))
  })
  /** Each kind of write of a run: one statement each, and a transaction of two. */
  const writes: ReadonlyArray<[string, Effect.Effect<unknown, unknown, SyncState | Scopes | Loader | SqlClient.SqlClient>]> = [
    ["started", Effect.flatMap(SyncState, (s) => s.started(["orders", "refunds"], run))],
    ["finished", Effect.flatMap(SyncState, (s) => s.finished([{ stream: "orders", rows: 3, error: null, served: 1_700_000_000 }]))],
    ["checkpoint", Effect.flatMap(SyncState, (s) => s.checkpoint("orders", { at: 1_700_000_000, id: 7 }, 3))],
    ["pass progress", Effect.flatMap(SyncState, (s) => s.savePassProgress("order_notes", { startedAt: 1_700_000_000, after: "5", at: 1_700_000_000 }))],
    // The store's report for a span: its days stored, and no longer pending, in one statement.
    ["the store's report", Effect.flatMap(Loader, (l) => l.loadSalesReport(
      [{ day: "2026-01-15", sales: `${++reports}.00`, orders: 1, items: 1, tax: "0.00", shipping: "0.00", discount: "0.00", customers: 1, refunds: "0.00" }],
      { first: "2026-01-01", last: "2026-01-31" }))],
    ["orphans", Effect.flatMap(Scopes, (s) => s.retireOrphans("store.order_notes", ["1"]))],
    ["unlisted", Effect.flatMap(Scopes, (s) => s.retireUnlisted("store.product_reviews", "", ["1"]))],
    ["a page of a list", Effect.flatMap(Scopes, (s) => s.upsert("store.product_reviews", [{ scope: "", key: "1", doc: { id: 1 } }]))],
    // A sync's page: the load's script carries the proof, then the stream's cursor moves; the total differs each
    // time (a page whose copy is newer), so a write that got through would show.
    ["a page of orders", Effect.flatMap(Effect.all([SqlClient.SqlClient, Loader, SyncState]), ([sql, loader, state]) => fenced(sql)(Effect.zipRight(
      loader.load({ kind: "orders", docs: [order(++pages)] }), state.advanceHead("page-test", { at: 1_700_000_000 + pages, id: 9001 }, 1))))],
    ["a transaction", Effect.flatMap(SqlClient.SqlClient, (sql) => fenced(sql)(Effect.zipRight(
      sql`INSERT INTO sync.report_days (store_id, day) VALUES (${STORE}, '2026-02-01') ON CONFLICT DO NOTHING`,
      sql`DELETE FROM sync.report_days WHERE store_id = ${STORE} AND day = '2026-02-01'`)))]
  ]
  let pages = 0
  let reports = 0
  const reported = () => sqlRows(db.url, "SELECT day::text, sales::text FROM store.sales_report_daily WHERE store_id = $1", [STORE])
  const order = (n: number) => ({
    id: 9001, number: "9001", status: "completed", currency: "EUR", created_via: "checkout", customer_id: 0, total: `${n}.00`, total_tax: "0.00",
    date_created: "2026-01-02T10:00:00", date_created_gmt: "2026-01-02T10:00:00", date_modified_gmt: `2026-01-02T10:${String(n).padStart(2, "0")}:00`,
    line_items: [], tax_lines: [], shipping_lines: [], fee_lines: [], coupon_lines: [], refunds: []
  })
  const days = () => sqlRows(db.url, "SELECT day::text FROM sync.report_days WHERE store_id = $1 ORDER BY day", [STORE])
  const totals = () => sqlRows(db.url, "SELECT total::text FROM store.orders WHERE store_id = $1", [STORE])
  const stateOf = async () => JSON.stringify(await sqlRows(db.url, "SELECT * FROM sync.state WHERE store_id = $1 ORDER BY stream", [STORE]))

  it("writes while the lease names the run, unguarded outside a run", async () => {
    for (const [name, write] of writes) {
      await expect(runtime.runPromise(withGuard(guard())(write)), name).resolves.not.toThrow()
      await expect(runtime.runPromise(write), name).resolves.not.toThrow()
    }
    expect(lostReasons).toEqual([])
    const [orders] = await sqlRows<{ last_run_id: string; last_rows: string; cursor_id: string }>(db.url,
      "SELECT last_run_id, last_rows, cursor_id FROM sync.state WHERE store_id = $1 AND stream = 'orders'", [STORE])
    expect(orders).toMatchObject({ last_run_id: String(run), last_rows: "3", cursor_id: "7" })
  })

  it("lets a run's writes commit without waiting for the disk, as its pages do; outside a run, as the server says", async () => {
    const setting = Effect.flatMap(SqlClient.SqlClient, (sql) =>
      fencedStatement(sql)((proved) => sql<{ sc: string }>`SELECT current_setting('synchronous_commit') AS sc WHERE ${proved}`))
    expect(await runtime.runPromise(withGuard(guard())(setting))).toEqual([{ sc: "off" }])
    expect(await runtime.runPromise(setting)).toEqual([{ sc: "on" }])
    // A transaction of a run: from its proof on, until it ends.
    const inTransaction = Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(Effect.zipRight(fenced(sql)(sql`SELECT 1`), sql<{ sc: string }>`SELECT current_setting('synchronous_commit') AS sc`)))
    expect(await runtime.runPromise(withGuard(guard())(inTransaction))).toEqual([{ sc: "off" }])
    expect(await runtime.runPromise(inTransaction)).toEqual([{ sc: "on" }])
  })

  it("writes nothing and stops the run once another run, or none, holds the lease", async () => {
    const [thief] = await sqlRows<{ id: string }>(db.url, "INSERT INTO sync.runs (store_id, command, streams) VALUES ($1, 'sync', '{}') RETURNING id", [STORE])
    for (const [holder, reason] of [[thief!.id, `run ${thief!.id} took over its lease of the sync lock`], [null, "its lease of the sync lock was released"]] as const) {
      await sqlRows(db.url, "UPDATE sync.run_leases SET holder = $2 WHERE store_id = $1 AND lock = 'sync'", [STORE, holder])
      await sqlRows(db.url, "INSERT INTO sync.report_days (store_id, day) VALUES ($1, '2026-01-15') ON CONFLICT DO NOTHING", [STORE])
      const before = await stateOf()
      const daysBefore = await days()
      const reportedBefore = await reported()
      expect(daysBefore).toContainEqual({ day: "2026-01-15" })
      for (const [name, write] of writes) {
        lostReasons.length = 0
        const exit = await runtime.runPromiseExit(withGuard(guard())(write))
        expect(exit._tag, name).toBe("Failure")
        expect(lostReasons, name).toEqual([reason])
      }
      expect(await stateOf()).toBe(before)
      // The copy of the first test's second page, written outside a run.
      expect(await totals()).toEqual([{ total: "2.00" }])
      expect(await days()).toEqual(daysBefore)
      expect(await reported()).toEqual(reportedBefore)
    }
  })
})
