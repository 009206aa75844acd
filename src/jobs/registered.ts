import { Data, Effect, Option } from "effect"
import { StoreRegistry } from "../stores/registry.js"
import { registeredMarketingSettings, registeredStoreSettings } from "../stores/store-settings.js"
import { errorText, RunLockHeld } from "../sync/errors.js"
import { logPushOutcome } from "./report.js"
import { type AfterSync, type StoreJob, StoreJobs, type StoreTarget, verdict } from "./store-jobs.js"

/** A push asked of a registered store that has no marketing service. */
export class NoMarketingService extends Data.TaggedError("NoMarketingService")<{ readonly storeId: string }> {
  override get message() {
    return `store ${this.storeId} has no marketing service registered`
  }
}

/** A registered store's marketing settings (None: it has none). */
export const registeredMarketing = (storeId: string) =>
  Effect.flatMap(StoreRegistry, (registry) => Effect.flatMap(registry.get(storeId), registeredMarketingSettings))

/** A registered store as a job's target: its secrets are opened first, so a wrong master key fails before any request. */
export const registeredTarget = (storeId: string) =>
  Effect.gen(function*() {
    const store = yield* (yield* StoreRegistry).get(storeId)
    return {
      storeId,
      settings: yield* registeredStoreSettings(store),
      marketing: yield* registeredMarketingSettings(store)
    } satisfies StoreTarget
  })

/** One line for last_error: the error's text, without line breaks (no secret is ever in an error's text). */
const oneLine = (e: unknown) => errorText(e).replace(/\s+/g, " ").slice(0, 2000)

/**
 * A sync or backfill of a registered store (the job `shopsync sync`/`backfill` runs, its settings from the registry),
 * its outcome recorded in the registry (last_success_at, last_error, `runner`: None for a command on its own); a run
 * that found the lock held records nothing there. The push's outcome line is logged here, for every host.
 */
export const runRegistered = (storeId: string, job: StoreJob, after: AfterSync, runner: Option.Option<string>) =>
  Effect.gen(function*() {
    const registry = yield* StoreRegistry
    const jobs = yield* StoreJobs
    const record = (effect: Effect.Effect<void, unknown>) =>
      effect.pipe(Effect.catchAll((e) => Effect.logWarning(`registry: could not record store ${storeId}'s outcome: ${errorText(e)}`)))
    const recordFailure = (e: unknown) => record(registry.recordFailure(storeId, oneLine(e), runner))
    const report = yield* registeredTarget(storeId).pipe(
      Effect.flatMap((target) => job.mode.kind === "sync" ? jobs.sync(target, job, after) : jobs.backfill(target, job)),
      Effect.tapError(recordFailure)
    )
    if (report._tag === "Ran" && report.contacts._tag === "Pushed") yield* logPushOutcome(report.contacts.pushed)
    yield* Option.match(verdict(report), {
      onNone: () => record(registry.recordSuccess(storeId, runner)),
      onSome: (e) => e instanceof RunLockHeld ? Effect.void : recordFailure(e)
    })
    return report
  })
