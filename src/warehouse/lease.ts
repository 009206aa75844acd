import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Data, Effect, FiberRef, Option, Schema } from "effect"
import { literal } from "./literal.js"

/** A heartbeat older than this frees the lease: its run stopped, or cannot reach the warehouse. */
export const LEASE_TTL_SECONDS = 15

/** The run lost its lock (another run took its lease, or the lock could not be held): it stopped writing. */
export class RunLockLost extends Data.TaggedError("RunLockLost")<{ readonly storeId: string; readonly runId: number; readonly reason: string }> {
  override get message() {
    return `sync run ${this.runId} of store ${this.storeId} lost its lock: ${this.reason}. It stopped and wrote nothing ` +
      `more after that; the next run resumes from the last checkpoints.`
  }
}

/** What every write of a run proves first: the lease of `lock` still names `token` (the run id). */
export interface Guard {
  readonly storeId: string
  readonly lock: string
  readonly token: number
  /** Runs a whole unit of work again while the warehouse connection is lost, for a bounded time. */
  readonly retry: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Stops the run that lost its lease (reports it, then interrupts the caller). */
  readonly lost: (reason: string) => Effect.Effect<never>
}

/** The guard of the phase a fiber runs in; none outside a run (`status`, the demo's reset), which writes unguarded. */
export const currentGuard = FiberRef.unsafeMake<Option.Option<Guard>>(Option.none())
export const withGuard = (guard: Guard) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.locally(effect, currentGuard, Option.some(guard))

/** SQLSTATE of sync.prove_lease: the lease names another run, or none. */
const LEASE_LOST = "SY001"
/** Why the lease is lost, in sync.prove_lease's words, when that is the failure. */
const lostReason = (e: unknown): string | undefined => {
  const cause = e instanceof SqlError ? (e.cause as { code?: unknown; message?: unknown } | undefined) : undefined
  return cause?.code === LEASE_LOST ? String(cause.message) : undefined
}

/** Stops the run whose statement found its lease taken. */
const stopWhenLost = (guard: Guard) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.catchIf(effect, (e) => lostReason(e) !== undefined, (e) => guard.lost(lostReason(e) ?? ""))

/**
 * The lease's proof as a boolean SQL expression (sync.prove_lease). FOR SHARE keeps the lease row until the
 * transaction ends: a run taking the lease over waits for it to commit, and then sees all it wrote. A scalar
 * subquery, so that PostgreSQL evaluates it once, before the statement writes anything.
 *
 * It also lets the transaction commit without waiting for the WAL flush (synchronous_commit, for this transaction
 * only), as a sync's pages do (loader.ts): a server crash can lose a run's last writes, whole transactions in commit
 * order, and the next run does them again from the checkpoints that survived. A sync commits some thirty writes:
 * waiting for their flushes was about 7 % of the server's CPU per sync (measured).
 */
const proof = (sql: SqlClient.SqlClient, guard: Guard) =>
  sql`(SELECT sync.prove_lease(${guard.storeId}, ${guard.lock}, ${guard.token}) AND set_config('synchronous_commit', 'off', true) = 'off')`

/**
 * A fenced transaction's proof: the guard, the transaction's connection and the depth the proof must run at (the
 * transaction's own, outside any savepoint: a proof in a savepoint rolled back would not hold), and whether a statement
 * has carried it yet. The lease row stays locked FOR SHARE from the proof until the transaction ends, so the writes
 * nested in it need no proof of their own; the first statement at that depth that can carry the proof does (a page's
 * load script, see carryProof), and the transaction proves it alone before it commits when none did. A write before
 * the proof is safe: a transaction whose proof fails rolls back whole, and one whose proof holds keeps the lease row
 * locked until it commits, so a run taking the lease over sees all it wrote.
 */
interface Owed {
  readonly guard: Guard
  readonly connection: unknown
  readonly depth: number
  proved: boolean
}
const owedIn = FiberRef.unsafeMake<Option.Option<Owed>>(Option.none())

/** The fenced transaction of `guard` the fiber is in, if any, and whether a statement run now may carry its proof. */
const owedHere = (guard: Guard) =>
  Effect.map(Effect.all([Effect.serviceOption(SqlClient.TransactionConnection), FiberRef.get(owedIn)]), ([tx, owed]) => {
    const mine = Option.isSome(tx) && Option.isSome(owed) && owed.value.guard === guard && owed.value.connection === tx.value[0]
    return {
      tx: Option.isSome(tx),
      owed: mine ? owed : Option.none<Owed>(),
      carry: mine && !owed.value.proved && tx.value[1] === owed.value.depth
    }
  })

/** Runs `effect` as the fenced part of the current transaction, then proves the lease unless a statement carried it. */
const owing = (sql: SqlClient.SqlClient, guard: Guard) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
  Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (tx) => {
    const prove = sql`SELECT ${proof(sql, guard)}`.pipe(stopWhenLost(guard), Effect.asVoid)
    // Called in a transaction only; outside one there is nothing to defer the proof to.
    if (Option.isNone(tx)) return Effect.zipRight(prove, effect)
    const owed: Owed = { guard, connection: tx.value[0], depth: tx.value[1], proved: false }
    return Effect.locally(Effect.tap(effect, () => (owed.proved ? Effect.void : prove)), owedIn, Option.some(owed))
  })

/**
 * A write of a run: in a transaction (the caller's, or one of its own, retried whole while the connection is lost)
 * that proves the run's lease (see Owed). Every write of a sync goes through here or `fencedStatement`; outside a run
 * it is the write alone.
 */
export const fenced = (sql: SqlClient.SqlClient) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
  Effect.flatMap(FiberRef.get(currentGuard), (guard) => {
    if (Option.isNone(guard)) return effect
    return Effect.flatMap(owedHere(guard.value), ({ owed, tx }) => {
      if (Option.isSome(owed)) return effect
      const fencedPart = owing(sql, guard.value)(effect)
      return tx ? fencedPart : guard.value.retry(sql.withTransaction(fencedPart))
    })
  })

/**
 * The proof a statement run now can carry, as SQL text of literals (for a script of several statements, which takes
 * no parameters), and what marks it carried once the statement has run; none when no proof is owed here. The
 * statement must prove it before it writes, and be run through `carried` (a lease found taken stops the run).
 */
export const carryProof: Effect.Effect<Option.Option<CarriedProof>> =
  Effect.flatMap(FiberRef.get(currentGuard), (guard) =>
    Option.isNone(guard) ? Effect.succeed(Option.none<CarriedProof>()) : Effect.map(owedHere(guard.value), ({ owed, carry }) =>
      carry && Option.isSome(owed)
        ? Option.some<CarriedProof>({
          text: `SELECT sync.prove_lease(${literal(guard.value.storeId)}, ${literal(guard.value.lock)}, ${Math.trunc(guard.value.token)})`,
          shown: "SELECT sync.prove_lease($value, $value, $value)",
          carried: (statement) => statement.pipe(stopWhenLost(guard.value), Effect.tap(() => Effect.sync(() => (owed.value.proved = true))))
        })
        : Option.none<CarriedProof>()))
export interface CarriedProof {
  readonly text: string
  /** The text with its values left out, for a span. */
  readonly shown: string
  readonly carried: <A, E, R>(statement: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/**
 * A write of a run that is one statement proving the lease itself: one round trip where `fenced` alone takes four
 * (BEGIN, the write, the proof, COMMIT), the statement being its own transaction. `statement` puts `proved`, a
 * boolean SQL expression, in the WHERE of its write (or of the SELECT that feeds it): the lease's proof in a run,
 * `true` outside one or in a fenced transaction, which proves it (such a statement carries no proof for it: a write
 * that matches no row may skip the proof, writing nothing). Alone, the statement is a unit of work run again while
 * the connection is lost; a lease found taken stops the run, as in `fenced`.
 */
export const fencedStatement = (sql: SqlClient.SqlClient) =>
<A, E, R>(statement: (proved: Fragment) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(currentGuard), (guard) => {
    if (Option.isNone(guard)) return statement(sql.literal("true"))
    return Effect.flatMap(owedHere(guard.value), ({ owed, tx }) => {
      if (Option.isSome(owed)) return statement(sql.literal("true"))
      const write = statement(proof(sql, guard.value)).pipe(stopWhenLost(guard.value))
      return tx ? write : guard.value.retry(write)
    })
  })

/** A lease as an acquiring run sees it. */
export const LeaseView = Schema.Struct({
  lock: Schema.String,
  holder: Schema.NullOr(Schema.NumberFromString),
  /** The heartbeat in microseconds since the epoch, to tell whether it moved. */
  beat: Schema.NullOr(Schema.BigInt),
  age: Schema.NullOr(Schema.Number),
  running: Schema.Boolean
})
export type LeaseView = typeof LeaseView.Type

/** A holder watched while its heartbeat stood still: its process is gone, though its run still says 'running'. */
export interface StillHolder {
  readonly run: number
  readonly beat: bigint
}

/** Free to take: nobody holds it, its run ended, its heartbeat is older than the TTL, or it has not moved since watched. */
export const isFree = (view: LeaseView, still: Option.Option<StillHolder>) =>
  view.holder === null || !view.running || view.age === null || view.age > LEASE_TTL_SECONDS ||
  (Option.isSome(still) && view.holder === still.value.run && view.beat !== null && view.beat <= still.value.beat)

/** One store's leases (sync.run_leases, migration 012). */
export const makeLeases = (sql: SqlClient.SqlClient, storeId: string) => {
  const views = Schema.decodeUnknown(Schema.Array(LeaseView))
  const select = (lock: string) =>
    sql`SELECT l.lock, l.holder, (extract(epoch FROM r.heartbeat_at) * 1000000)::bigint::text AS beat,
               extract(epoch FROM now() - r.heartbeat_at)::float8 AS age, coalesce(r.status = 'running', false) AS running
        FROM sync.run_leases l LEFT JOIN sync.runs r ON r.id = l.holder
        WHERE l.store_id = ${storeId} AND l.lock = ${lock}`.pipe(
      Effect.flatMap(views), Effect.orDie, Effect.map((rows) => rows[0] ?? { lock, holder: null, beat: null, age: null, running: false }))
  return {
    read: (lock: string) => select(lock),
    /** Renews the heartbeat of `run` (on its row: the leases stay free of row locks but its writes'); returns the locks it still holds. */
    beat: (run: number) =>
      sql<{ lock: string }>`WITH beat AS (UPDATE sync.runs SET heartbeat_at = now() WHERE id = ${run})
                            SELECT lock FROM sync.run_leases WHERE store_id = ${storeId} AND holder = ${run}`.pipe(
        Effect.map((rows) => new Set(rows.map((r) => r.lock)))),
    holder: (lock: string) => Effect.map(select(lock), (view) => view.holder),
    /** Empties the leases of `locks` that name `run` (the run's session gives them back itself: this is for when it is gone). */
    release: (run: number, locks: ReadonlyArray<string>) =>
      sql`UPDATE sync.run_leases SET holder = NULL WHERE store_id = ${storeId} AND lock = ANY(${locks}::text[]) AND holder = ${run}`.pipe(
        Effect.asVoid)
  }
}
export type Leases = ReturnType<typeof makeLeases>

/** Runs a whole unit of work of a run (a stream, from its checkpoints) again while the warehouse connection is lost. */
export const retryInRun = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(currentGuard), (guard) => (Option.isSome(guard) ? guard.value.retry(effect) : effect))
