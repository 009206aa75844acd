import { Clock, Duration, Effect, Option } from "effect"
import type { Leases } from "../warehouse/lease.js"
import { atMost } from "../warehouse/reconnect.js"
import type { RunSession } from "../warehouse/run-session.js"
import { errorText } from "./errors.js"

/** Every this often a run renews its leases and makes sure its advisory locks' sessions still answer. */
export const HEARTBEAT = Duration.seconds(2)

interface Beat {
  readonly leases: Leases
  readonly run: number
  /** The session holding the run's advisory locks (the sales one leaves when released). */
  readonly session: RunSession
  readonly retrySeconds: number
  /** Stops the run, saying why. */
  readonly lost: (reason: string) => Effect.Effect<unknown>
}

/**
 * Keeps a run's locks for as long as it runs: renews the heartbeat of its leases (a lease that no longer names the
 * run stops it), and takes again an advisory lock whose session was lost (an idle reaper, a failover, a warehouse
 * restart), on a new session, for at most `retrySeconds` before the run stops. Meanwhile the lease still names
 * the run, so another run that gets the advisory lock leaves it alone while the heartbeat goes on.
 */
export const heartbeat = (beat: Beat) =>
  Effect.gen(function*() {
    let down: number | undefined
    for (;;) {
      yield* Effect.sleep(HEARTBEAT)
      const locks = yield* beat.session.locks
      const held = yield* beat.leases.beat(beat.run).pipe(Effect.option, atMost(HEARTBEAT), Effect.map(Option.flatten))
      for (const lock of locks) {
        if (held._tag === "Some" && !held.value.has(lock)) {
          const holder = yield* beat.leases.holder(lock).pipe(Effect.orElseSucceed(() => null))
          return yield* beat.lost(holder === null ? `its lease of the ${lock} lock was taken from it` : `run ${holder} took over its lease of the ${lock} lock`)
        }
      }
      // A run that gave back its last lock (the sales one, without the other resources') has no session to keep.
      if (locks.length === 0 || (yield* beat.session.alive)) continue
      const now = yield* Clock.currentTimeMillis
      const named = `${locks.join(" and ")} lock${locks.length > 1 ? "s" : ""}`
      const them = locks.length > 1 ? "the locks" : "the lock"
      if (down === undefined) yield* Effect.logWarning(`the database session holding the ${named} was lost; taking ${them} again`)
      const retaken = yield* beat.session.retake.pipe(Effect.either)
      if (retaken._tag === "Right" && retaken.right) {
        yield* Effect.logInfo(`took the ${named} again, on a new session, after ${((now - (down ?? now)) / 1000).toFixed(1)} s`)
        down = undefined
        continue
      }
      const why = retaken._tag === "Left" ? errorText(retaken.left) : "another session holds it"
      if (down !== undefined && now - down > beat.retrySeconds * 1000) {
        return yield* beat.lost(`the database session holding its ${named} was lost and ${them} could not be taken again within ${beat.retrySeconds} s (${why})`)
      }
      down ??= now
    }
  })
