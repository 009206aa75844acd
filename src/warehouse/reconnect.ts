import { SqlError } from "@effect/sql/SqlError"
import { Cause, Clock, Data, Duration, Effect, Exit, Option } from "effect"
import { sqlErrorText } from "./sql-error.js"

/** SQLSTATEs and socket errors of a lost or refused connection: the server went away, restarts, or is not up yet. */
const LOST_CODES = new Set(["57P01", "57P02", "57P03", "ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"])
const LOST_TEXT = /Connection terminated|not queryable|Connection error|terminating connection|the database system is/i

/**
 * The warehouse connection was lost, or the server refuses connections for now (class 08, admin shutdown, crash
 * shutdown, starting up): worth trying again. A refused statement or a wrong password is not.
 */
export const isConnectionLoss = (e: unknown): boolean => {
  if (!(e instanceof SqlError)) return false
  const cause = e.cause as { code?: unknown; message?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : ""
  return code.startsWith("08") || LOST_CODES.has(code) || LOST_TEXT.test(String(cause?.message ?? ""))
}

/**
 * The lost connection a failure is about, if it is one: @effect/sql turns a failed COMMIT or ROLLBACK into a defect,
 * and on a dead connection the ROLLBACK after a failed statement fails too, so defects are looked at as well.
 */
const lostConnection = <E>(cause: Cause.Cause<E>): Option.Option<unknown> =>
  Cause.isInterrupted(cause)
    ? Option.none()
    : Option.filter(Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause)), isConnectionLoss)

/**
 * Runs `effect` again while it fails with a lost connection, waiting 0.25 s, 0.5 s, … up to 4 s between attempts,
 * the last one at `boundSeconds`; then fails as the last attempt did. Only whole units of work may be retried (a
 * transaction, a stream resuming from its checkpoints): a statement of a transaction whose connection died cannot.
 */
export const retryConnection = (boundSeconds: number) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    for (let delay = 250; ; delay = Math.min(delay * 2, 4_000)) {
      const exit = yield* Effect.exit(effect)
      if (Exit.isSuccess(exit)) return exit.value
      const lost = lostConnection(exit.cause)
      const left = boundSeconds * 1000 - ((yield* Clock.currentTimeMillis) - start)
      if (Option.isNone(lost) || left <= 0) return yield* exit
      // The last wait is cut to the bound, so a server back just before it is still found.
      const wait = Math.min(delay, left)
      yield* Effect.logWarning(
        `${sqlErrorText(lost.value)}: trying again in ${wait / 1000} s (for up to ${boundSeconds} s); the run resumes from its checkpoints`
      )
      yield* Effect.sleep(Duration.millis(wait))
    }
  })

/** The warehouse stayed unreachable for the whole of SHOPSYNC_WAREHOUSE_RETRY_SECONDS as a run started. */
export class WarehouseUnreachable extends Data.TaggedError("WarehouseUnreachable")<{ readonly seconds: number; readonly cause: SqlError }> {
  override get message() {
    return `${sqlErrorText(this.cause)}; gave up after trying for ${this.seconds} s (SHOPSYNC_WAREHOUSE_RETRY_SECONDS)`
  }
}

/**
 * `retryConnection` for the start of a run (its connection, migrate, locks and row): a warehouse down or restarting
 * is waited for like later in the run, and one still unreachable at the bound fails with WarehouseUnreachable, which
 * names the setting that bounds the wait. Other failures (a wrong password, a missing database) fail at once as they are.
 */
export const retryStartup = (boundSeconds: number) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | WarehouseUnreachable, R> =>
  retryConnection(boundSeconds)(effect).pipe(
    Effect.mapError((e) => (isConnectionLoss(e) ? new WarehouseUnreachable({ seconds: boundSeconds, cause: e as SqlError }) : e))
  )

/**
 * Waits at most `duration` for a statement, without interrupting it: @effect/sql-pg answers an interrupt with
 * `pg_cancel_backend`, sent from another pool connection, which on a busy pool may run after the statement ended and
 * its connection went on to another run's transaction, cancelling that. Left to run, the statement ends on its own.
 */
export const atMost = (duration: Duration.DurationInput) => <A, E, R>(statement: Effect.Effect<A, E, R>) =>
  Effect.timeoutOption(Effect.disconnect(statement), duration)
