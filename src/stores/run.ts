import { Effect, Option } from "effect"
import { fullPassConfig } from "../config/settings.js"
import { OutboxLive } from "../contacts/outbox.js"
import type { PushResult } from "../contacts/push.js"
import { syncLayer } from "../cli/layers.js"
import { runPush } from "../cli/push-command.js"
import type { MarketingSettings } from "../config/settings.js"
import { runSync, type RunSummary, type SyncRequest } from "../sync/engine.js"
import { errorText } from "../sync/errors.js"
import { StoreRegistry } from "./registry.js"
import { registeredMarketingSettings, registeredStoreSettings } from "./store-settings.js"

/** A sync or backfill of a registered store: the request a single-store command makes, minus the full-pass settings. */
export type StoreJob = Pick<SyncRequest, "streams" | "mode" | "waitForLock" | "waitSeconds" | "named">

export interface StoreJobOptions {
  /** Who runs it, recorded in the registry's runner column (None: a command on its own). */
  readonly runner: Option.Option<string>
  /**
   * After a sync (not a backfill), with the store's marketing service registered: the contact push's result, as
   * `shopsync sync` reports it. It runs when some streams failed too (the push works on what the warehouse holds).
   */
  readonly onPush?: (result: PushResult) => Effect.Effect<void, Error>
}

/** One line for last_error: the error's text, without line breaks (no secret is ever in an error's text). */
const oneLine = (e: unknown) => errorText(e).replace(/\s+/g, " ").slice(0, 2000)

/**
 * Runs a sync or backfill of a registered store with the code `shopsync sync`/`backfill` runs (runSync over
 * StoreClientLive), its settings built from the registry: its secrets are opened first, so a wrong master key fails
 * before any request reaches the store. Records the outcome in the registry (last_success_at, last_error, runner).
 * Returns undefined when another run holds the store's lock (and the job does not wait), as runSync does.
 */
export const runRegisteredStore = (storeId: string, job: StoreJob, options: StoreJobOptions) =>
  Effect.gen(function*() {
    const registry = yield* StoreRegistry
    const record = (effect: Effect.Effect<void, unknown>) =>
      effect.pipe(Effect.catchAll((e) => Effect.logWarning(`registry: could not record store ${storeId}'s outcome: ${errorText(e)}`)))
    const run = Effect.gen(function*() {
      const store = yield* registry.get(storeId)
      const settings = yield* registeredStoreSettings(store)
      const marketing = yield* registeredMarketingSettings(store)
      const summary: RunSummary | undefined = yield* runSync({ ...job, ...(yield* fullPassConfig) }).pipe(
        Effect.provide(syncLayer(settings)),
        Effect.tapErrorTag("SyncFailed", () => push(storeId, job, marketing, options))
      )
      if (summary !== undefined) yield* push(storeId, job, marketing, options)
      return summary
    })
    return yield* run.pipe(
      Effect.tap((summary) => summary === undefined ? Effect.void : record(registry.recordSuccess(storeId, options.runner))),
      Effect.tapError((e) => record(registry.recordFailure(storeId, oneLine(e), options.runner)))
    )
  })

/** The contact push after a sync, when the store has a marketing service and the caller takes its result. */
const push = (
  storeId: string,
  job: StoreJob,
  marketing: Option.Option<MarketingSettings>,
  options: StoreJobOptions
) =>
  Option.isNone(marketing) || job.mode.kind !== "sync" || options.onPush === undefined
    ? Effect.void
    : runPush(marketing.value, storeId).pipe(Effect.flatMap(options.onPush), Effect.provide(OutboxLive))

