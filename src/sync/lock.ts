import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Deferred, Duration, Effect, ExecutionStrategy, Exit, Option, Scope } from "effect"
import { type Guard, type Leases, makeLeases, RunLockLost, type StillHolder, isFree } from "../warehouse/lease.js"
import { retryConnection, retryStartup } from "../warehouse/reconnect.js"
import { beginRun, RESOURCES, type RunSession, SALES } from "../warehouse/run-session.js"
import type { Run } from "./runs.js"
import { heartbeat } from "./heartbeat.js"

export { RunLockLost } from "../warehouse/lease.js"

/** How long a lease whose advisory lock is free is watched for a heartbeat before its run is taken for dead. */
const WATCH = Duration.seconds(5)

/** What a run holds: its row, its locks' guards, and how it stops when it loses one. */
export interface RunLocks {
  readonly run: Run
  readonly sales: Guard
  /** The guard of the other resources' lock, when this run holds it (then no other run is alive). */
  readonly resources: Option.Option<Guard>
  /** Releases the run lock (lease and advisory lock) once the sales streams are stored. */
  readonly releaseSales: Effect.Effect<void>
  /** Runs `effect` until the run loses a lock, then interrupts it and fails with RunLockLost. */
  readonly untilLost: <A, E, R>(effect: Effect.Effect<A, E | SqlError, R>) => Effect.Effect<A, E | SqlError | RunLockLost, R>
}

export interface LockOptions {
  /** The run's command and streams, recorded in its row. */
  readonly command: string
  readonly streams: ReadonlyArray<string>
  readonly wait: boolean
  /** With wait: give up after this many seconds (undefined: as long as it takes). */
  readonly waitSeconds?: number | undefined
  /** How long a lost lock session is taken again, and a lost warehouse connection retried, before the run stops. */
  readonly retrySeconds: number
  /**
   * Keeps the run its start recorded (sync.runs) for the caller's scope, whose end records its outcome: `dirtyDays`
   * when days awaited their sums as it began.
   */
  readonly record: (begun: { readonly id: number; readonly dirtyDays: boolean }) => Effect.Effect<Run, never, Scope.Scope>
}

type Attempt =
  | { readonly _tag: "Got"; readonly run: Run; readonly session: RunSession; readonly both: boolean }
  | { readonly _tag: "Busy" }
  /** The advisory lock was free but the lease names a run that may be alive: its heartbeat decides. */
  | { readonly _tag: "Watch"; readonly holder: StillHolder }

/**
 * One try, one statement (sync.begin_run): the advisory locks, then the leases. A free lease is claimed (the holder
 * it had, fenced out, is recorded as ended: sync.claim_leases judges it as isFree does), the run recorded and named
 * in it, in one transaction: no row of a run that did not get the lock, and none that overlaps its predecessor's.
 * A sales lease whose holder may still be alive is left alone (the holder lost its session and is taking its lock
 * again, or its process just died): returned as found, to watch its heartbeat.
 */
const attempt = (storeId: string, options: LockOptions, still: Option.Option<StillHolder>) =>
  Effect.gen(function*() {
    const begun = yield* beginRun(storeId, options, still)
    switch (begun._tag) {
      case "Busy":
        return begun
      case "Leased": {
        const seen = begun.lease
        return (!isFree(seen, still) && seen.holder !== null && seen.beat !== null && Option.isNone(still)
          ? { _tag: "Watch", holder: { run: seen.holder, beat: seen.beat } }
          : { _tag: "Busy" }) as Attempt
      }
      case "Started": {
        const run = yield* options.record({ id: begun.run, dirtyDays: begun.dirtyDays })
        return { _tag: "Got", run, session: begun.session, both: (yield* begun.session.locks).includes(RESOURCES) } as Attempt
      }
    }
  })

/**
 * `attempt` in a scope of its own, tried again from scratch while the warehouse connection is lost (a restart as the
 * run starts): what a failed try took ends with its scope (its lock sessions, its run's row, recorded as failed), and
 * PostgreSQL has released the advisory locks of a session that died. The scope stays open, for the caller's, only
 * when the try got the locks.
 */
const attemptAfresh = (storeId: string, options: LockOptions, still: Option.Option<StillHolder>) =>
  Effect.flatMap(Scope.Scope, (parent) =>
    Effect.flatMap(Scope.fork(parent, ExecutionStrategy.sequential), (scope) =>
      attempt(storeId, options, still).pipe(
        Scope.extend(scope),
        Effect.onExit((exit) => (Exit.isSuccess(exit) && exit.value._tag === "Got" ? Effect.void : Scope.close(scope, exit)))
      ))).pipe(retryStartup(options.retrySeconds))

/**
 * Takes the store's run lock for the caller's scope: the session-level advisory lock, and the lease that every write
 * of the run proves (see lease.ts). Returns none when another run holds it and `wait` is off; with `wait`, tries
 * again every 2 seconds, for at most `waitSeconds` when given. The other resources' lock is taken too when free.
 */
export const acquireRunLocks = (storeId: string, options: LockOptions) =>
  Effect.gen(function*() {
    const leases = makeLeases(yield* SqlClient.SqlClient, storeId)
    const start = yield* Clock.currentTimeMillis
    const waiting = Effect.map(Clock.currentTimeMillis, (now) => options.wait && (options.waitSeconds === undefined || now - start < options.waitSeconds * 1000))
    let still = Option.none<StillHolder>()
    let said = false
    for (;;) {
      const tried = yield* attemptAfresh(storeId, options, still)
      if (tried._tag === "Got") return Option.some(yield* holding(storeId, leases, tried, options.retrySeconds))
      if (tried._tag === "Watch") {
        yield* Effect.logInfo(`the lock of store ${storeId} is free but run ${tried.holder.run} holds its lease: watching its heartbeat`)
        yield* Effect.sleep(WATCH)
        const now = yield* retryStartup(options.retrySeconds)(leases.read(SALES))
        // Its heartbeat stood still: its process is gone; the next try takes the lease over.
        if (now.holder === tried.holder.run && now.beat !== null && now.beat <= tried.holder.beat) {
          still = Option.some(tried.holder)
          continue
        }
      }
      still = Option.none()
      if (!(yield* waiting)) return Option.none<RunLocks>()
      if (!said) yield* Effect.logInfo(`another shopsync run holds the lock for store ${storeId}; waiting for it to finish`)
      said = true
      yield* Effect.sleep(Duration.seconds(2))
    }
  })

/** The locks taken: the heartbeat that keeps them, and the guards their writes prove. */
const holding = (storeId: string, leases: Leases, got: Extract<Attempt, { _tag: "Got" }>, retrySeconds: number) =>
  Effect.gen(function*() {
    const lost = yield* Deferred.make<RunLockLost>()
    const signal = (reason: string) => Deferred.succeed(lost, new RunLockLost({ storeId, runId: got.run.id, reason }))
    yield* Effect.forkScoped(heartbeat({ leases, run: got.run.id, session: got.session, retrySeconds, lost: signal }))
    const guard = (lock: string): Guard => ({
      storeId,
      lock,
      token: got.run.id,
      retry: retryConnection(retrySeconds),
      lost: (reason) => Effect.zipRight(signal(reason), Effect.interrupt)
    })
    const untilLost = <A, E, R>(effect: Effect.Effect<A, E | SqlError, R>) =>
      Effect.raceFirst(
        // A write that found the lease gone interrupted itself: the run fails with why.
        effect.pipe(Effect.catchAllCause((cause) =>
          Effect.flatMap(Deferred.poll(lost), (done): Effect.Effect<never, E | SqlError | RunLockLost> =>
            Option.isSome(done) ? Effect.flatMap(done.value, Effect.fail) : Effect.failCause(cause)))),
        Effect.flatMap(Deferred.await(lost), Effect.fail)
      )
    return {
      run: got.run,
      sales: guard(SALES),
      resources: got.both ? Option.some(guard(RESOURCES)) : Option.none(),
      releaseSales: got.session.release(SALES),
      untilLost
    } satisfies RunLocks
  })
