import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, ExecutionStrategy, Exit, Option, Schema, Scope } from "effect"
import { closeClean, execute, openSession, ranWithin, type Session, SESSION_IDENTITY, SessionIdentity } from "./advisory-lock.js"
import { LEASE_TTL_SECONDS, type LeaseView, makeLeases, type StillHolder } from "./lease.js"
import { atMost } from "./reconnect.js"

/** A run's advisory locks, each a lease of the same name (lease.ts). */
export const SALES = "sync"
export const RESOURCES = "resources"

/** The locks a run's session holds, which may be lost with its connection. */
export interface RunSession {
  /** The locks it holds now (the sales one leaves once released). */
  readonly locks: Effect.Effect<ReadonlyArray<string>>
  /** The session holding them still answers (within 10 s). */
  readonly alive: Effect.Effect<boolean>
  /** Takes the locks again on a new session, the old one being gone; false while another session holds one of them. */
  readonly retake: Effect.Effect<boolean, SqlError>
  /** Gives back the lease and advisory lock of `lock` (the sales one, once its phase is stored), in one statement. */
  readonly release: (lock: string) => Effect.Effect<void>
}

/** What a run's start found (sync.begin_run). */
export type Begun =
  /** Another session holds the sales advisory lock. */
  | { readonly _tag: "Busy" }
  /** The advisory lock was free but not the sales lease: the lease as found, nothing recorded. */
  | { readonly _tag: "Leased"; readonly lease: LeaseView }
  | { readonly _tag: "Started"; readonly run: number; readonly dirtyDays: boolean; readonly session: RunSession }

const BeginRow = Schema.Struct({
  got_lock: Schema.Boolean,
  run_id: Schema.NullOr(Schema.NumberFromString),
  days_dirty: Schema.NullOr(Schema.Boolean),
  leases_held: Schema.NullOr(Schema.Array(Schema.String)),
  lease_holder: Schema.NullOr(Schema.NumberFromString),
  lease_beat: Schema.NullOr(Schema.BigInt),
  lease_age: Schema.NullOr(Schema.Number),
  lease_running: Schema.NullOr(Schema.Boolean),
  ...SessionIdentity
})
const RetakeRow = Schema.Struct({ locked: Schema.NullOr(Schema.Boolean), ...SessionIdentity })

/**
 * A run's start (sync.begin_run) on a connection reserved for the caller's scope, which keeps the run's advisory
 * locks: one round trip for the locks, the leases, the run's row. When the run starts, the scope's end gives its
 * leases and locks back in one statement on that session (on the pool when the session is gone); the caller's
 * finalizers added after this one (the run's outcome) run before it.
 */
export const beginRun = (storeId: string, run: { readonly command: string; readonly streams: ReadonlyArray<string> }, still: Option.Option<StillHolder>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const parent = yield* Scope.Scope
    // The run's sessions (the first, and any that takes its locks again) close with it, after its end's statement.
    const home = yield* Scope.fork(parent, ExecutionStrategy.sequential)
    const first = yield* openSession(sql, home)
    const row = yield* execute(first.conn, sql`
      SELECT b.*, ${sql.literal(SESSION_IDENTITY)}
      FROM sync.begin_run(${storeId}, ${run.command}, ${run.streams}::text[], ${Option.getOrNull(Option.map(still, (h) => h.run))}::bigint,
                          ${Option.getOrNull(Option.map(still, (h) => h.beat.toString()))}::bigint, ${LEASE_TTL_SECONDS}) b`).pipe(
      Effect.flatMap((rows) => Schema.decodeUnknown(BeginRow)(rows[0])),
      Effect.catchTag("ParseError", Effect.die),
      Effect.onError(() => Scope.close(first.scope, Exit.void)))
    first.pid = row.pid
    first.started = row.started
    if (!row.got_lock) return yield* Effect.as(closeClean(first), { _tag: "Busy" } as Begun)
    if (row.run_id === null) {
      const lease: LeaseView = { lock: SALES, holder: row.lease_holder, beat: row.lease_beat, age: row.lease_age, running: row.lease_running ?? false }
      return yield* Effect.as(closeClean(first), { _tag: "Leased", lease } as Begun)
    }
    const session = yield* keep(sql, storeId, row.run_id, row.leases_held ?? [SALES], first, home, parent)
    return { _tag: "Started", run: row.run_id, dirtyDays: row.days_dirty === true, session } as Begun
  })

/** The session of a started run: its locks, kept until the caller's scope ends, and given back then. */
const keep = (sql: SqlClient.SqlClient, storeId: string, run: number, taken: ReadonlyArray<string>, first: Session, home: Scope.Scope, parent: Scope.Scope) =>
  Effect.gen(function*() {
    const leases = makeLeases(sql, storeId)
    let current: Session | undefined = first
    let locks = [...taken]
    let ended = false
    const turn = yield* Effect.makeSemaphore(1)
    const serial = turn.withPermits(1)
    const onPool = (held: ReadonlyArray<string>) => leases.release(run, held).pipe(Effect.ignore, atMost(Duration.seconds(5)))

    // The leases that name the run and the session's locks, given back in one statement; by the pool when it fails.
    const end = serial(Effect.suspend(() => {
      ended = true
      const session = current
      current = undefined
      if (session === undefined) return onPool(taken)
      return ranWithin(3)(execute(session.conn, sql`
        WITH released AS (UPDATE sync.run_leases SET holder = NULL WHERE store_id = ${storeId} AND holder = ${run} RETURNING 1)
        SELECT pg_advisory_unlock_all(), (SELECT count(*) FROM released) AS released`)).pipe(
        Effect.tap((ok) => (ok ? Effect.sync(() => (session.clean = true)) : onPool(taken))),
        Effect.zipRight(Scope.close(session.scope, Exit.void)))
    }))
    yield* Scope.addFinalizer(parent, end)

    const release = (lock: string) => serial(Effect.suspend(() => {
      locks = locks.filter((l) => l !== lock)
      if (current === undefined) return onPool([lock])
      return ranWithin(3)(execute(current.conn, sql`
        WITH released AS (UPDATE sync.run_leases SET holder = NULL WHERE store_id = ${storeId} AND lock = ${lock} AND holder = ${run} RETURNING 1)
        SELECT pg_advisory_unlock(hashtext(${`shopsync:${lock}`}), hashtext(${storeId})), (SELECT count(*) FROM released) AS released`)).pipe(
        Effect.flatMap((ok) => (ok ? Effect.void : onPool([lock]))))
    }))

    const retake = serial(Effect.gen(function*() {
      if (ended) return true
      const gone = current
      current = undefined
      if (gone !== undefined) yield* Scope.close(gone.scope, Exit.void)
      const next = yield* openSession(sql, home)
      const row = yield* execute(next.conn, sql`
        SELECT bool_and(pg_try_advisory_lock(hashtext('shopsync:' || l), hashtext(${storeId}))) AS locked, ${sql.literal(SESSION_IDENTITY)}
        FROM unnest(${locks}::text[]) AS l`).pipe(
        Effect.flatMap((rows) => Schema.decodeUnknown(RetakeRow)(rows[0])),
        Effect.catchTag("ParseError", Effect.die),
        Effect.onError(() => Scope.close(next.scope, Exit.void)))
      next.pid = row.pid
      next.started = row.started
      // Some lock taken by another session meanwhile: the ones this one got are given back with it.
      if (row.locked === false) return yield* Effect.as(Scope.close(next.scope, Exit.void), false)
      current = next
      return true
    }))

    const alive = Effect.suspend(() => {
      if (ended) return Effect.succeed(true)
      const session = current
      if (session === undefined) return Effect.succeed(false)
      // A session that errs is gone; one that does not answer within 10 s (a busy machine answers sooner) is taken for gone.
      return ranWithin(10)(execute(session.conn, sql`SELECT 1`))
    })

    return { locks: Effect.sync(() => locks), alive, retake, release } satisfies RunSession
  })
