import { Clock, Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { withGuard } from "../../warehouse/lease.js"
import { storeDailyTotals, storeNow, underRunLock } from "../engine.js"
import type { RunLocks } from "../lock.js"
import { SyncState } from "../state.js"
import { type PassReport, reconcile } from "./reconcile.js"
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

/**
 * A reconciliation on its own (`shopsync verify`), recorded as a run of its own under the store's run lock, as a
 * sync is: no sync writes while it compares and repairs. Returns undefined when another run holds the lock (and
 * `waitForLock` is off). A complete repairing pass counts as the scheduled one: the next sync's is due
 * SHOPSYNC_VERIFY_HOURS later.
 */
export const runVerify = Effect.fn("sync.verify")(function*(request: VerifyRequest) {
  yield* Effect.annotateCurrentSpan("shopsync.resources", request.resources.join(","))
  return yield* underRunLock({ command: "verify", streams: request.resources, wait: request.waitForLock }, (locks) => verifyLocked(request, locks))
})

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
