import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, ExecutionStrategy, Exit, Option, Schema, Scope } from "effect"
import { atMost } from "./reconnect.js"

/** The session's pid and start, selected: its start tells it from a later session given the same pid. */
export const SESSION_IDENTITY = "pg_backend_pid() AS pid, (SELECT backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()) AS started"
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
const Unlocked = Schema.Struct({ unlocked: Schema.Boolean })

/**
 * Tries the lock on a connection reserved in a scope of its own, forked from `parent`: when the lock was taken, the
 * scope unlocks it and gives the connection back when `parent` closes, or ends the session when the unlock fails;
 * PostgreSQL unlocks it when the session ends.
 */
const attempt = (namespace: string, key: string, parent: Scope.Scope) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Scope.fork(parent, ExecutionStrategy.sequential)
    const taken = Effect.gen(function*() {
      const conn = yield* Scope.extend(sql.reserve, scope)
      const [text, params] = sql`SELECT pg_try_advisory_lock(hashtext(${namespace}), hashtext(${key})) AS locked, ${sql.literal(SESSION_IDENTITY)}`.compile()
      const rows = yield* conn.execute(text, params, undefined)
      const { locked, pid, started } = yield* Schema.decodeUnknown(Locked)(rows[0]).pipe(Effect.orDie)
      if (!locked) return false
      const [unlock, unlockParams] = sql`SELECT pg_advisory_unlock(hashtext(${namespace}), hashtext(${key})) AS unlocked`.compile()
      const unlocked = conn.execute(unlock, unlockParams, undefined).pipe(
        Effect.flatMap((answer) => Schema.decodeUnknown(Unlocked)(answer[0])),
        Effect.map((u) => u.unlocked),
        Effect.orElseSucceed(() => false),
        atMost(Duration.seconds(3)),
        Effect.map(Option.getOrElse(() => false))
      )
      yield* Scope.addFinalizer(scope, Effect.flatMap(unlocked, (ok) => (ok ? Effect.void : endSession(sql, pid, started))))
      return true
    })
    return yield* taken.pipe(Effect.tap((held) => (held ? Effect.void : Scope.close(scope, Exit.void))), Effect.onError(() => Scope.close(scope, Exit.void)))
  })

/**
 * Tries the session-level advisory lock (hashtext(namespace), hashtext(key)) on a connection reserved
 * for the caller's scope; the scope's finalizer releases it (PostgreSQL does if the process dies).
 * Returns false at once when another session holds it, giving its connection straight back, so a
 * caller may poll without holding more than one connection. (A run's locks: run-session.ts.)
 */
export const tryAdvisoryLock = (namespace: string, key: string): Effect.Effect<boolean, SqlError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.flatMap(Scope.Scope, (parent) => attempt(namespace, key, parent))
