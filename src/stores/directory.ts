import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Cause, Duration, Effect, Layer, Option } from "effect"
import type { SqlClient } from "@effect/sql/SqlClient"
import { type StoreRunDone, StoreDirectory, StoreWorkFailed } from "../cluster/store-directory.js"
import { latestDay } from "../cli/backfill-command.js"
import { reportPush, runPush } from "../cli/push-command.js"
import { summaryText } from "../cli/summary.js"
import { OutboxLive } from "../contacts/outbox.js"
import { SALES_STREAMS, STREAMS } from "../sync/catalogue.js"
import { RunLockHeld } from "../sync/errors.js"
import { Runs, RunsLive } from "../sync/runs.js"
import { StoreClientLive } from "../store-client/client.js"
import { countStoreDelivery } from "../webhooks/delivery-metrics.js"
import { Inbox, InboxLive } from "../webhooks/inbox.js"
import { applyAllPending } from "../webhooks/worker.js"
import { StoreRegistry } from "./registry.js"
import { runRegisteredStore, type StoreJob } from "./run.js"
import { registeredMarketingSettings, registeredStoreSettings } from "./store-settings.js"

/** The operator's line for failed work: a failure's own message, else the first line of the cause. */
const describe = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const e = failure.value as { message?: unknown; _tag?: unknown }
    return typeof e.message === "string" && e.message !== "" ? e.message : String(e._tag ?? e)
  }
  return Cause.pretty(cause).split("\n")[0] ?? "failed"
}

/** Any failure of a store's work as StoreWorkFailed (it travels to the sender); an interrupt stays one. */
const asWorkFailed = (storeId: string) => <A, R>(work: Effect.Effect<A, unknown, R>): Effect.Effect<A, StoreWorkFailed, R> =>
  work.pipe(
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const failure = Cause.failureOption(cause)
      const partial = Option.isSome(failure) && (failure.value as { _tag?: unknown })._tag === "SyncFailed"
      const report = partial ? summaryText((failure.value as { summary: Parameters<typeof summaryText>[0] }).summary) : undefined
      return Effect.fail(new StoreWorkFailed({ storeId, message: describe(cause), ...(partial ? { partial, report } : {}) }))
    }),
    Effect.annotateLogs({ store: storeId })
  )

/**
 * The StoreDirectory of a worker: the registry's stores, their work run by runRegisteredStore (the code `stores sync`
 * runs here), recorded in the registry under `runner` (this runner's host:port). A store whose lock another run holds
 * (a `stores sync --here`, a runner the cluster already gave up on) is skipped, recorded as such, not failed: the next
 * slot tries again.
 */
export const RegistryDirectoryLive = (runner: string) =>
  Layer.effect(StoreDirectory, Effect.gen(function*() {
    const registry = yield* StoreRegistry
    const context = yield* Effect.context<StoreRegistry | SqlClient>()

    const run = (storeId: string, command: string, job: StoreJob, trigger: string) =>
      Effect.gen(function*() {
        const summary = yield* runRegisteredStore(storeId, job, { runner: Option.some(runner), onPush: reportPush })
        if (summary === undefined) {
          const held = new RunLockHeld({ storeId })
          yield* Effect.flatMap(Runs, (runs) => runs.skipped(command, job.streams, held)).pipe(Effect.provide(RunsLive(storeId)))
          yield* Effect.logInfo(`store ${storeId}: another run holds its lock; ${trigger} skipped`)
          return { outcome: "skipped_locked", runner, report: "" } satisfies StoreRunDone
        }
        yield* Effect.logInfo(`store ${storeId}: ${command} (${trigger}) done, ${summary.requests} requests in ${summary.seconds.toFixed(1)} s`)
        return { outcome: "succeeded", runner, report: summaryText(summary) } satisfies StoreRunDone
      }).pipe(asWorkFailed(storeId), Effect.provide(context))

    const push = (storeId: string, required: boolean) =>
      Effect.gen(function*() {
        const marketing = yield* registeredMarketingSettings(yield* registry.get(storeId))
        if (Option.isNone(marketing)) {
          return required ? yield* Effect.fail(new Error(`store ${storeId} has no marketing service registered`)) : undefined
        }
        yield* reportPush(yield* runPush(marketing.value, storeId).pipe(Effect.provide(OutboxLive)))
      })

    // Failed attempts per store and delivery (inbox seq); a store that moves to another runner starts counting again there.
    const attempts = new Map<string, Map<number, number>>()
    const attemptsOf = (storeId: string) => attempts.get(storeId) ?? attempts.set(storeId, new Map()).get(storeId)!

    /**
     * Applies every pending delivery of the store, in arrival order, with a StoreClient built from the registry (only
     * when something is pending), then pushes the contacts at once when they may have changed and the store has a
     * marketing service: the entity runs one message at a time and each applies all that waits, so a burst of
     * deliveries makes a few pushes, not one each.
     */
    const applyInbox = (storeId: string) =>
      Effect.gen(function*() {
        const inbox = yield* Inbox
        if ((yield* inbox.pending(storeId, 1)).length === 0) return
        const settings = yield* registeredStoreSettings(yield* registry.get(storeId))
        const done = yield* applyAllPending(storeId, { attempts: attemptsOf(storeId), count: countStoreDelivery }).pipe(
          Effect.provide(StoreClientLive(settings).pipe(Layer.provide(NodeHttpClient.layerUndici))))
        if (done.contacts) yield* push(storeId, false)
      }).pipe(Effect.provide(InboxLive))

    /** Before a sync: the deliveries still pending (their ApplyDelivery lost, or an earlier one that erred) are applied first. */
    const applyBeforeSync = (storeId: string) =>
      applyInbox(storeId).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning(`store ${storeId}: pending webhook deliveries not applied before the sync: ${describe(cause)}`)),
        Effect.provide(context)
      )

    return StoreDirectory.of({
      list: registry.list.pipe(
        Effect.map((stores) => stores.map((s) => ({ storeId: s.storeId, every: Duration.millis(s.everyMs), enabled: s.enabled }))),
        Effect.mapError((e) => new StoreWorkFailed({ storeId: "*", message: `the store registry could not be read: ${e.message}` }))
      ),
      syncStore: (storeId, trigger) =>
        Effect.zipRight(applyBeforeSync(storeId), run(storeId, "sync", { streams: STREAMS, mode: { kind: "sync" }, waitForLock: false, named: false }, trigger)),
      backfillStore: (storeId, { since, until }) =>
        run(storeId, "backfill", { streams: SALES_STREAMS, mode: { kind: "backfill", since, until: until ?? latestDay() }, waitForLock: true, named: false }, `backfill ${since}…${until ?? "today"}`),
      pushContacts: (storeId) => push(storeId, true).pipe(asWorkFailed(storeId), Effect.provide(context)),
      applyDelivery: (storeId) => applyInbox(storeId).pipe(asWorkFailed(storeId), Effect.provide(context))
    })
  }))
