import { Clock, Duration, Effect } from "effect"
import { tryAdvisoryLock } from "../warehouse/advisory-lock.js"

/**
 * One sync per store at a time: an advisory lock held for the run's scope (distinct from the push's).
 * Returns false when another run holds it and `wait` is off; with `wait`, tries again every 2 seconds, for at
 * most `waitSeconds` when given.
 */
export const acquireRunLock = (storeId: string, wait: boolean, waitSeconds?: number) =>
  Effect.gen(function*() {
    const tryLock = tryAdvisoryLock("shopsync:sync", storeId)
    const start = yield* Clock.currentTimeMillis
    const waiting = Effect.map(Clock.currentTimeMillis, (now) => wait && (waitSeconds === undefined || now - start < waitSeconds * 1000))
    let locked = yield* tryLock
    if (!locked && wait) yield* Effect.logInfo(`another shopsync run holds the lock for store ${storeId}; waiting for it to finish`)
    while (!locked && (yield* waiting)) {
      yield* Effect.sleep(Duration.seconds(2))
      locked = yield* tryLock
    }
    return locked
  })

/**
 * The store's other resources are refreshed by one run at a time, outside the run lock (see runSync). Held, it
 * also proves that no other run is alive: runs left 'running' then died.
 */
export const tryResourcesLock = (storeId: string) => tryAdvisoryLock("shopsync:resources", storeId)
