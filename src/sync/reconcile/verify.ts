import { Clock, Effect, Layer, Option } from "effect"
import { warehouseRetryConfig } from "../../config/settings.js"
import { StoreClient } from "../../store-client/client.js"
import { withGuard } from "../../warehouse/lease.js"
import { LiveRowsLive } from "../../warehouse/live-rows.js"
import { LoaderLive } from "../../warehouse/loader.js"
import { migrate } from "../../warehouse/migrate.js"
import { storeDailyTotals, storeNow } from "../engine.js"
import { acquireRunLocks, type RunLocks } from "../lock.js"
import { Runs, RunsLive } from "../runs.js"
import { SyncState, SyncStateLive } from "../state.js"
import { type PassReport, reconcile } from "./reconcile.js"
import { ReconciliationsLive } from "./record.js"
import { RESOURCES, type ResourceName } from "./resources.js"
import { RECONCILIATION } from "./schedule.js"

/** What `shopsync verify` is asked to do. */
export interface VerifyRequest {
  readonly resources: ReadonlyArray<ResourceName>
  readonly repair: boolean
  readonly waitForLock: boolean
}

/** A pass as the command reports it: with its requests and seconds. */
export interface VerifyReport extends PassReport {
  readonly requests: number
  readonly seconds: number
}

const repositories = (storeId: string) =>
  Layer.mergeAll(SyncStateLive(storeId), LoaderLive(storeId), LiveRowsLive(storeId), ReconciliationsLive(storeId))

/**
 * A reconciliation on its own (`shopsync verify`), recorded as a run of its own under the store's run lock, as a
 * sync is: no sync writes while it compares and repairs. Returns undefined when another run holds the lock (and
 * `waitForLock` is off). A complete repairing pass counts as the scheduled one: the next sync's is due
 * SHOPSYNC_VERIFY_HOURS later.
 */
export const runVerify = (request: VerifyRequest) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const retrySeconds = yield* warehouseRetryConfig
    yield* migrate
    const runs = yield* Effect.provide(Runs, RunsLive(store.storeId))
    const locks = yield* acquireRunLocks(store.storeId, {
      wait: request.waitForLock,
      retrySeconds,
      begin: (alone) => runs.begin("verify", request.resources, store.requestCount, alone)
    })
    if (Option.isNone(locks)) return undefined
    return yield* Effect.provide(locks.value.untilLost(verifyLocked(request, locks.value)), repositories(store.storeId))
  }).pipe(Effect.scoped)

const verifyLocked = (request: VerifyRequest, locks: RunLocks) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const started = yield* Clock.currentTimeMillis
    const upper = (yield* storeNow) - store.settleSeconds
    const pass = yield* withGuard(locks.sales)(Effect.gen(function*() {
      const pass = yield* reconcile({ resources: request.resources, repair: request.repair, upper, runId: locks.run.id })
      if (request.repair) yield* storeDailyTotals
      if (request.repair && RESOURCES.every((name) => request.resources.includes(name))) {
        yield* Effect.flatMap(SyncState, (state) => state.fullPassDone(RECONCILIATION, upper))
      }
      return pass
    }))
    yield* locks.run.addRows(pass.resources.reduce((n, r) => n + r.repaired, 0))
    const report: VerifyReport = { ...pass, requests: yield* store.requestCount, seconds: ((yield* Clock.currentTimeMillis) - started) / 1000 }
    return report
  })
