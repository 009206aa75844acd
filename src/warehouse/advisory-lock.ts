import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, ExecutionStrategy, Exit, Schema, Scope } from "effect"

const Locked = Schema.Struct({ locked: Schema.Boolean })

/**
 * Tries the session-level advisory lock (hashtext(namespace), hashtext(key)) on a connection reserved
 * for the caller's scope; the scope's finalizer releases it (PostgreSQL does if the process dies).
 * Returns false at once when another session holds it, giving its connection straight back, so a
 * caller may poll without holding more than one connection.
 */
export const tryAdvisoryLock = (namespace: string, key: string): Effect.Effect<boolean, SqlError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const attempt = yield* Scope.fork(yield* Scope.Scope, ExecutionStrategy.sequential)
    const conn = yield* Scope.extend(sql.reserve, attempt)
    const [text, params] = sql`SELECT pg_try_advisory_lock(hashtext(${namespace}), hashtext(${key})) AS locked`.compile()
    const rows = yield* conn.execute(text, params, undefined)
    const { locked } = yield* Schema.decodeUnknown(Locked)(rows[0]).pipe(Effect.orDie)
    if (!locked) {
      yield* Scope.close(attempt, Exit.void)
      return false
    }
    const [unlock, unlockParams] = sql`SELECT pg_advisory_unlock(hashtext(${namespace}), hashtext(${key}))`.compile()
    yield* Scope.addFinalizer(attempt, conn.execute(unlock, unlockParams, undefined).pipe(Effect.ignore))
    return true
  })
