import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Deferred, Duration, Effect, ExecutionStrategy, Exit, Option, Ref, Scope } from "effect"
import { type AdvisoryLock, holdAdvisoryLock } from "../warehouse/advisory-lock.js"
import { type Guard, type Leases, makeLeases, RunLockLost, type StillHolder, isFree } from "../warehouse/lease.js"
import { atMost, retryConnection, retryStartup } from "../warehouse/reconnect.js"
import type { Run } from "./runs.js"
import { heartbeat } from "./heartbeat.js"

export { RunLockLost } from "../warehouse/lease.js"

const SALES = "sync"
const RESOURCES = "resources"
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
  readonly wait: boolean
  /** With wait: give up after this many seconds (undefined: as long as it takes). */
  readonly waitSeconds?: number | undefined
  /** How long a lost lock session is taken again, and a lost warehouse connection retried, before the run stops. */
  readonly retrySeconds: number
  /** Records the run (its row in sync.runs) once its leases are claimed, before they name it: `alone` when it holds both. */
  readonly begin: (alone: boolean) => Effect.Effect<Run, SqlError, Scope.Scope>
}

/** One lock's advisory lock held in a scope of its own, and the lease released with it (by the run that took it). */
const holdLock = (storeId: string, lock: string, leases: Leases, token: Ref.Ref<number | null>, parent: Scope.Scope) =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(parent, ExecutionStrategy.sequential)
    const advisory = yield* Scope.extend(holdAdvisoryLock(`shopsync:${lock}`, storeId), scope)
    if (Option.isNone(advisory)) yield* Scope.close(scope, Exit.void)
    else {
      const release = Effect.flatMap(Ref.get(token), (run) => (run === null ? Effect.void : leases.release(lock, run)))
      yield* Scope.addFinalizer(scope, release.pipe(Effect.ignore, atMost(Duration.seconds(5))))
    }
    return Option.map(advisory, (held) => ({ lock, advisory: held, close: Scope.close(scope, Exit.void) }))
  })
type Held = Effect.Effect.Success<ReturnType<typeof holdLock>> extends Option.Option<infer H> ? H : never

type Attempt =
  | { readonly _tag: "Got"; readonly run: Run; readonly sales: Held; readonly resources: Option.Option<Held>; readonly token: number }
  | { readonly _tag: "Busy" }
  /** The advisory lock was free but the lease names a run that may be alive: its heartbeat decides. */
  | { readonly _tag: "Watch"; readonly holder: StillHolder }

/**
 * One try: the advisory locks, then the leases. A free lease is claimed (the holder it had, fenced out, is recorded
 * as ended: sync.claim_leases judges it as isFree does), then the run is recorded, then the lease names it: no row of
 * a run that did not get the lock, and none that overlaps its predecessor's. A sales lease whose holder may still be
 * alive is left alone (the holder lost its session and is taking its lock again, or its process just died): read
 * only then, to watch its heartbeat.
 */
const attempt = (storeId: string, leases: Leases, options: LockOptions, still: Option.Option<StillHolder>) =>
  Effect.gen(function*() {
    const parent = yield* Scope.Scope
    const token = yield* Ref.make<number | null>(null)
    const sales = yield* holdLock(storeId, SALES, leases, token, parent)
    if (Option.isNone(sales)) return { _tag: "Busy" } as Attempt
    const resources = yield* holdLock(storeId, RESOURCES, leases, token, parent)
    const claimed = yield* leases.claim([SALES, ...Option.toArray(resources).map(() => RESOURCES)], still)
    const both = claimed.includes(RESOURCES)
    if (!both) yield* Effect.forEach(Option.toArray(resources), (r) => r.close, { discard: true })
    if (!claimed.includes(SALES)) {
      const seen = yield* leases.read(SALES)
      yield* sales.value.close
      return (!isFree(seen, still) && seen.holder !== null && seen.beat !== null && Option.isNone(still)
        ? { _tag: "Watch", holder: { run: seen.holder, beat: seen.beat } }
        : { _tag: "Busy" }) as Attempt
    }
    const run = yield* options.begin(both)
    yield* Ref.set(token, run.id)
    const held = yield* leases.take(claimed, run.id)
    if (held.size < claimed.length) return yield* new RunLockLost({ storeId, runId: run.id, reason: "another run took the lease while this one was starting" })
    return { _tag: "Got", run, sales: sales.value, resources: both ? resources : Option.none(), token: run.id } as Attempt
  })

/**
 * `attempt` in a scope of its own, tried again from scratch while the warehouse connection is lost (a restart as the
 * run starts): what a failed try took ends with its scope (its lock sessions, its run's row, recorded as failed), and
 * PostgreSQL has released the advisory locks of a session that died. The scope stays open, for the caller's, only
 * when the try got the locks.
 */
const attemptAfresh = (storeId: string, leases: Leases, options: LockOptions, still: Option.Option<StillHolder>) =>
  Effect.flatMap(Scope.Scope, (parent) =>
    Effect.flatMap(Scope.fork(parent, ExecutionStrategy.sequential), (scope) =>
      attempt(storeId, leases, options, still).pipe(
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
      const tried = yield* attemptAfresh(storeId, leases, options, still)
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
    const signal = (reason: string) => Deferred.succeed(lost, new RunLockLost({ storeId, runId: got.token, reason }))
    const watched = yield* Ref.make(new Map<string, AdvisoryLock>([[SALES, got.sales.advisory], ...Option.toArray(got.resources).map((r) => [RESOURCES, r.advisory] as const)]))
    yield* Effect.forkScoped(heartbeat({ leases, run: got.token, watched, retrySeconds, lost: signal }))
    const guard = (lock: string): Guard => ({
      storeId,
      lock,
      token: got.token,
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
      resources: Option.map(got.resources, () => guard(RESOURCES)),
      releaseSales: Effect.zipRight(Ref.update(watched, (m) => (m.delete(SALES), m)), got.sales.close),
      untilLost
    } satisfies RunLocks
  })
