import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import type { Statement } from "@effect/sql/Statement"
import { Duration, Effect, ExecutionStrategy, Exit, Option, Schema, Scope } from "effect"
import { atMost } from "./reconnect.js"

/** The session's pid and start, selected: its start tells it from a later session given the same pid. */
export const SESSION_IDENTITY = "pg_backend_pid() AS pid, (SELECT backend_start::text FROM pg_stat_get_activity(pg_backend_pid())) AS started"
/** The fields SESSION_IDENTITY selects. */
export const SessionIdentity = { pid: Schema.Number, started: Schema.String }

const Locked = Schema.Struct({ locked: Schema.Boolean, ...SessionIdentity })

/**
 * Ends the session `pid` started at `started`: a lock not given back (the unlock failed or did not answer: a loaded
 * machine, a run interrupted mid-statement) would go back to the pool with its connection and hold the store until
 * that connection closes: every later run would wait for it and be skipped. Ending the session frees the lock, and
 * the pool drops the connection.
 */
export const endSession = (sql: SqlClient.SqlClient, pid: number, started: string) =>
  sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ${pid} AND backend_start::text = ${started}`.pipe(
    Effect.ignore, atMost(Duration.seconds(3)))
export interface Session {
  readonly conn: Connection
  readonly scope: Scope.CloseableScope
  pid: number | undefined
  started: string | undefined
  /** It holds no advisory lock: its scope gives the connection back as it is. */
  clean: boolean
}

/** A statement on the session's connection, traced as the pool's statements are. */
export const execute = (conn: Connection, statement: Statement<unknown>) => {
  const [text, params] = statement.compile()
  return conn.execute(text, params, undefined).pipe(
    Effect.withSpan("sql.execute", { kind: "client", attributes: { "db.operation.name": "execute", "db.query.text": text } }))
}

/** Whether `effect` (a statement on a session) succeeded within `seconds`: an error or no answer is false. */
export const ranWithin = (seconds: number) => (effect: Effect.Effect<unknown, unknown>) =>
  effect.pipe(Effect.as(true), Effect.orElseSucceed(() => false), atMost(Duration.seconds(seconds)), Effect.map(Option.getOrElse(() => false)))

/**
 * A connection reserved in a scope of its own. Session-level advisory locks outlive the transaction that took them
 * (even one rolled back): unless the session is known clean, closing the scope unlocks them all before the
 * connection goes back to the pool, and ends the session when that fails (a loaded machine, a run interrupted
 * mid-statement), so that no pooled connection holds a store's lock; PostgreSQL unlocks a session that dies.
 */
export const openSession = (sql: SqlClient.SqlClient, home: Scope.Scope) =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(home, ExecutionStrategy.sequential)
    const conn = yield* Scope.extend(sql.reserve, scope).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
    const session: Session = { conn, scope, pid: undefined, started: undefined, clean: false }
    const ended = Effect.suspend(() => (session.pid === undefined ? Effect.void : endSession(sql, session.pid, session.started ?? "")))
    const unlocked = ranWithin(3)(execute(conn, sql`SELECT pg_advisory_unlock_all()`))
    yield* Scope.addFinalizer(scope, Effect.suspend(() =>
      session.clean ? Effect.void : Effect.flatMap(unlocked, (ok) => (ok ? Effect.void : ended))))
    return session
  })

/** Closes a session known to hold nothing. */
export const closeClean = (session: Session) => Effect.suspend(() => ((session.clean = true), Scope.close(session.scope, Exit.void)))

/** Tries the lock on a session reserved in a scope of its own, forked from `parent`, which gives it back as it closes. */
const attempt = (namespace: string, key: string, parent: Scope.Scope) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const session = yield* openSession(sql, parent)
    const { locked, pid, started } = yield* execute(session.conn, sql`
      SELECT pg_try_advisory_lock(hashtext(${namespace}), hashtext(${key})) AS locked, ${sql.literal(SESSION_IDENTITY)}`).pipe(
      Effect.flatMap((rows) => Effect.orDie(Schema.decodeUnknown(Locked)(rows[0]))),
      Effect.onError(() => Scope.close(session.scope, Exit.void)))
    session.pid = pid
    session.started = started
    if (!locked) yield* closeClean(session)
    return locked
  })

/**
 * Tries the session-level advisory lock (hashtext(namespace), hashtext(key)) on a connection reserved
 * for the caller's scope; the scope's finalizer releases it (PostgreSQL does if the process dies).
 * Returns false at once when another session holds it, giving its connection straight back, so a
 * caller may poll without holding more than one connection. (A run's locks: run-session.ts.)
 */
export const tryAdvisoryLock = (namespace: string, key: string): Effect.Effect<boolean, SqlError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.flatMap(Scope.Scope, (parent) => attempt(namespace, key, parent))
