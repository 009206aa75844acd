import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, ExecutionStrategy, Exit, Option, Ref, Schema, Scope } from "effect"
import { atMost } from "./reconnect.js"

const Locked = Schema.Struct({ locked: Schema.Boolean, pid: Schema.Number, started: Schema.String })
const Unlocked = Schema.Struct({ unlocked: Schema.Boolean })

/** A session-level advisory lock held on a connection of its own, which may be lost with that connection. */
export interface AdvisoryLock {
  /** The session holding the lock still answers (within 10 s). */
  readonly alive: Effect.Effect<boolean>
  /** Takes the lock again on a new session, the old one being gone; false while another session holds it. */
  readonly retake: Effect.Effect<boolean, SqlError>
  /** Unlocks it and gives the connection back (also done when the caller's scope closes). */
  readonly release: Effect.Effect<void>
}

/**
 * Tries the lock on a connection reserved in a scope of its own: the scope (returned when the lock was taken)
 * unlocks and gives the connection back when closed, or ends the session when the unlock fails; PostgreSQL unlocks
 * it when the session ends.
 */
const attempt = (namespace: string, key: string, parent: Scope.Scope) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Scope.fork(parent, ExecutionStrategy.sequential)
    const taken = Effect.gen(function*() {
      const conn = yield* Scope.extend(sql.reserve, scope)
      const [text, params] = sql`SELECT pg_try_advisory_lock(hashtext(${namespace}), hashtext(${key})) AS locked, pg_backend_pid() AS pid,
                                        (SELECT backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()) AS started`.compile()
      const rows = yield* conn.execute(text, params, undefined)
      const { locked, pid, started } = yield* Schema.decodeUnknown(Locked)(rows[0]).pipe(Effect.orDie)
      if (!locked) return Option.none()
      const [unlock, unlockParams] = sql`SELECT pg_advisory_unlock(hashtext(${namespace}), hashtext(${key})) AS unlocked`.compile()
      const unlocked = conn.execute(unlock, unlockParams, undefined).pipe(
        Effect.flatMap((answer) => Schema.decodeUnknown(Unlocked)(answer[0])),
        Effect.map((u) => u.unlocked),
        Effect.orElseSucceed(() => false),
        atMost(Duration.seconds(3)),
        Effect.map(Option.getOrElse(() => false))
      )
      // A lock not given back (the unlock failed or did not answer: a loaded machine, a run interrupted mid-statement)
      // would go back to the pool with its connection and hold the store until that connection closes: every later
      // run would wait for it and be skipped. Ending the session frees the lock, and the pool drops the connection;
      // its start time makes sure it is that session, not a later one given the same pid.
      const endSession = sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ${pid} AND backend_start::text = ${started}`.pipe(
        Effect.ignore, atMost(Duration.seconds(3)))
      yield* Scope.addFinalizer(scope, Effect.flatMap(unlocked, (ok) => (ok ? Effect.void : endSession)))
      // A session that errs is gone; one that does not answer within 10 s (a busy machine answers sooner) is taken for gone.
      const alive = conn.execute("SELECT 1", [], undefined).pipe(
        Effect.as(true), Effect.orElseSucceed(() => false), atMost(Duration.seconds(10)), Effect.map(Option.getOrElse(() => false)))
      return Option.some({ scope, alive })
    })
    return yield* taken.pipe(Effect.tap((held) => (Option.isNone(held) ? Scope.close(scope, Exit.void) : Effect.void)), Effect.onError(() => Scope.close(scope, Exit.void)))
  })

/**
 * Tries the session-level advisory lock (hashtext(namespace), hashtext(key)) on a connection reserved
 * for the caller's scope; the scope's finalizer releases it (PostgreSQL does if the process dies).
 * Returns false at once when another session holds it, giving its connection straight back, so a
 * caller may poll without holding more than one connection.
 */
export const tryAdvisoryLock = (namespace: string, key: string): Effect.Effect<boolean, SqlError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.map(holdAdvisoryLock(namespace, key), Option.isSome)

/** `tryAdvisoryLock`, keeping a handle that tells whether the lock's session is alive and takes it again when not. */
export const holdAdvisoryLock = (
  namespace: string,
  key: string
): Effect.Effect<Option.Option<AdvisoryLock>, SqlError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const parent = yield* Scope.Scope
    const sql = yield* SqlClient.SqlClient
    const first = yield* attempt(namespace, key, parent)
    if (Option.isNone(first)) return Option.none()
    const current = yield* Ref.make(Option.some(first.value))
    // Released on purpose (or the caller's scope closed): nothing left to watch or take again.
    const ended = yield* Ref.make(false)
    yield* Scope.addFinalizer(parent, Ref.set(ended, true))
    const drop = Effect.flatMap(Ref.getAndSet(current, Option.none()), Option.match({
      onNone: () => Effect.void,
      onSome: (held) => Scope.close(held.scope, Exit.void)
    }))
    const retake = Effect.gen(function*() {
      if (yield* Ref.get(ended)) return true
      yield* drop
      const next = yield* attempt(namespace, key, parent).pipe(Effect.provideService(SqlClient.SqlClient, sql))
      yield* Ref.set(current, next)
      return Option.isSome(next)
    })
    const alive = Effect.gen(function*() {
      if (yield* Ref.get(ended)) return true
      const held = yield* Ref.get(current)
      return Option.isSome(held) && (yield* held.value.alive)
    })
    return Option.some<AdvisoryLock>({ alive, retake, release: Effect.zipRight(Ref.set(ended, true), drop) })
  })
