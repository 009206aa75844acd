// A run starts with one statement on a connection it keeps for its locks (src/warehouse/run-session.ts). Session-level
// advisory locks outlive the transaction that took them, even one rolled back: whatever way a start or an end goes,
// no connection may go back to the pool holding a store's lock, or every later run of that store would be skipped.
import { Effect, ManagedRuntime, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgLayer } from "../../src/warehouse/database.js"
import { beginRun, SALES } from "../../src/warehouse/run-session.js"
import { sqlRows } from "../support/database.js"
import { type MigratedDatabase, migratedDatabase } from "../support/migrated.js"

const RUN = { command: "sync", streams: ["orders"] }

describe("a run's lock session", () => {
  // One connection: a lock left on it would be seen by the next statement the pool serves.
  let db: MigratedDatabase
  beforeAll(async () => {
    db = await migratedDatabase(1)
  }, 60_000)
  afterAll(() => db?.close())

  /** The advisory locks held in the database, by any session. */
  const advisoryLocks = () =>
    sqlRows<{ n: number }>(db.url, "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
      .then((rows) => rows[0]!.n)
  const leases = (store: string) =>
    sqlRows<{ lock: string; holder: string | null }>(db.url, "SELECT lock, holder::text FROM sync.run_leases WHERE store_id = $1 ORDER BY lock", [store])

  it("a start that fails after taking its locks gives them back before its connection returns to the pool", async () => {
    // The run's row cannot be written: begin_run fails after its two pg_try_advisory_lock calls.
    await sqlRows(db.url, `CREATE FUNCTION refuse_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
      CREATE TRIGGER refuse_run BEFORE INSERT ON sync.runs FOR EACH ROW WHEN (NEW.store_id = 'broken') EXECUTE FUNCTION refuse_run()`)
    const failed = await db.runtime.runPromise(Effect.scoped(beginRun("broken", RUN, Option.none())).pipe(Effect.flip))
    expect(String((failed as { cause?: unknown }).cause)).toContain("refused")
    expect(await advisoryLocks()).toBe(0)
    // The pool's one connection serves the next start, which gets the locks.
    await sqlRows(db.url, "DROP TRIGGER refuse_run ON sync.runs")
    const started = await db.runtime.runPromise(Effect.scoped(Effect.flatMap(beginRun("broken", RUN, Option.none()), (b) =>
      Effect.map(Effect.promise(advisoryLocks), (n) => ({ tag: b._tag, locksWhileRunning: n })))))
    expect(started).toEqual({ tag: "Started", locksWhileRunning: 2 })
    expect(await advisoryLocks()).toBe(0)
    expect(await leases("broken")).toEqual([{ lock: "resources", holder: null }, { lock: "sync", holder: null }])
  })

  it("a store whose lock another session holds: Busy, with nothing recorded and nothing left held", async () => {
    const other = await import("pg").then((pg) => new pg.default.Client({ connectionString: db.url }))
    await other.connect()
    try {
      await other.query("SELECT pg_advisory_lock(hashtext('shopsync:sync'), hashtext('held'))")
      const begun = await db.runtime.runPromise(Effect.scoped(beginRun("held", RUN, Option.none())))
      expect(begun._tag).toBe("Busy")
      expect(await advisoryLocks()).toBe(1)
      expect(await sqlRows(db.url, "SELECT id FROM sync.runs WHERE store_id = 'held'")).toEqual([])
    } finally {
      await other.end()
    }
  })

  it("a lease whose holder's heartbeat moves: the lease as found, the locks given back at once, no row recorded", async () => {
    const [holder] = await sqlRows<{ id: string }>(db.url, "INSERT INTO sync.runs (store_id, command, streams, heartbeat_at) VALUES ('leased', 'sync', '{}', now()) RETURNING id")
    await sqlRows(db.url, "INSERT INTO sync.run_leases (store_id, lock, holder) VALUES ('leased', 'sync', $1)", [holder!.id])
    const begun = await db.runtime.runPromise(Effect.scoped(Effect.flatMap(beginRun("leased", RUN, Option.none()), (b) =>
      Effect.map(Effect.promise(advisoryLocks), (n) => ({ begun: b, locks: n })))))
    expect(begun.locks).toBe(0)
    expect(begun.begun._tag === "Leased" && { holder: begun.begun.lease.holder, running: begun.begun.lease.running }).toEqual({ holder: Number(holder!.id), running: true })
    expect((await sqlRows(db.url, "SELECT id FROM sync.runs WHERE store_id = 'leased'")).length).toBe(1)
  })

  it("a run whose session died before its end: its leases are given back on the pool, and no lock is left", async () => {
    // Two connections: the session's, and the pool's for the leases once it is gone.
    const two = ManagedRuntime.make(pgLayer(Redacted.make(db.url), 2))
    const pid = await two.runPromise(Effect.scoped(Effect.gen(function*() {
      const begun = yield* beginRun("killed", RUN, Option.none())
      expect(begun._tag).toBe("Started")
      if (begun._tag === "Started") yield* begun.session.release(SALES)
      const [row] = yield* Effect.promise(() => sqlRows<{ pid: number }>(db.url,
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"))
      yield* Effect.promise(() => sqlRows(db.url, "SELECT pg_terminate_backend($1)", [row!.pid]))
      return row!.pid
    })).pipe(Effect.ensuring(Effect.promise(() => two.dispose()))))
    expect(pid).toBeGreaterThan(0)
    expect(await advisoryLocks()).toBe(0)
    expect(await leases("killed")).toEqual([{ lock: "resources", holder: null }, { lock: "sync", holder: null }])
  })
})
