import { Cause, Duration, Effect, Layer, Option, Predicate } from "effect"
import type { SqlClient } from "@effect/sql/SqlClient"
import { type StoreRunDone, StoreDirectory, StoreWorkFailed } from "../cluster/store-directory.js"
import { StoreRegistry } from "../stores/registry.js"
import { SALES_STREAMS, STREAMS } from "../sync/catalogue.js"
import { SyncFailed } from "../sync/errors.js"
import { latestDay } from "../sync/time.js"
import { countStoreDelivery } from "../webhooks/delivery-metrics.js"
import { WebhookRejections } from "../webhooks/rejections.js"
import { NoMarketingService, registeredMarketing, registeredTarget, runRegistered } from "./registered.js"
import { settlePush, summaryText } from "./report.js"
import { type StoreJob, StoreJobs, verdict } from "./store-jobs.js"

/** The operator's line for failed work: a failure's own message, else its tag; a defect's first line. */
const describe = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.failureOption(cause), {
    onSome: (e) =>
      Predicate.hasProperty(e, "message") && typeof e.message === "string" && e.message !== ""
        ? e.message
        : String(Predicate.hasProperty(e, "_tag") ? e._tag : e),
    onNone: () => Cause.pretty(cause).split("\n")[0] ?? "failed"
  })

/** Any failure of a store's work as StoreWorkFailed (it travels to the sender); an interrupt stays one. */
const asWorkFailed = (storeId: string) => <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, StoreWorkFailed, R> =>
  work.pipe(
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const failure = Cause.failureOption(cause)
      const partial = Option.isSome(failure) && failure.value instanceof SyncFailed ? failure.value : undefined
      return Effect.fail(new StoreWorkFailed({
        storeId, message: describe(cause), ...(partial ? { partial: true, report: summaryText(partial.summary) } : {})
      }))
    }),
    Effect.annotateLogs({ store: storeId })
  )

/**
 * How long a worker's sync waits for a store's lock before it is skipped. A store whose shard just moved here is often
 * still held by the run interrupted on the runner it left, closing (released within a second or two), or by a dead
 * runner's run whose lease ends after its TTL (15 s); skipping would leave the slot's one message spent until the next
 * slot, an interval later. A long run elsewhere (`stores sync --here`) still ends in a skip, a permit held this long.
 */
const LOCK_WAIT_SECONDS = 30

/**
 * The StoreDirectory of a worker: the registry's stores, their work run by StoreJobs (what `stores sync` runs),
 * recorded in the registry under `runner` (this runner's host:port). A store whose lock another run holds (a
 * `stores sync --here`, a runner the cluster already gave up on) past LOCK_WAIT_SECONDS is skipped, recorded as
 * such, not failed: the next slot tries again. Outcomes are logged (the run's own lines): a worker prints nothing.
 */
export const RegistryDirectoryLive = (runner: string) =>
  Layer.effect(StoreDirectory, Effect.gen(function*() {
    const [registry, rejections] = yield* Effect.all([StoreRegistry, WebhookRejections])
    const context = yield* Effect.context<StoreRegistry | StoreJobs | SqlClient>()

    const run = (storeId: string, command: string, job: StoreJob, trigger: string) =>
      Effect.gen(function*() {
        const report = yield* runRegistered(storeId, job, "push", Option.some(runner))
        // Debug lines: the run's own line (its summary, or its skip as a warning) has already told the operator, with
        // the store; these only tie it to the message that asked for it.
        if (report._tag === "Locked") {
          yield* Effect.logDebug(`store ${storeId}: another run holds its lock; ${trigger} skipped`)
          return { outcome: "skipped_locked", runner, report: "" } satisfies StoreRunDone
        }
        const failure = verdict(report)
        if (Option.isSome(failure)) return yield* Effect.fail(failure.value)
        const { summary } = report
        yield* Effect.logDebug(`store ${storeId}: ${command} (${trigger}) done, ${summary.requests} requests in ${summary.seconds.toFixed(1)} s`)
        return { outcome: "succeeded", runner, report: summaryText(summary) } satisfies StoreRunDone
      }).pipe(asWorkFailed(storeId), Effect.provide(context))

    const push = (storeId: string) =>
      Effect.gen(function*() {
        const marketing = yield* registeredMarketing(storeId)
        if (Option.isNone(marketing)) return yield* new NoMarketingService({ storeId })
        yield* settlePush(yield* Effect.flatMap(StoreJobs, (jobs) => jobs.push(storeId, marketing.value)))
      })

    // Failed attempts per store and delivery (inbox seq); a store that moves to another runner starts counting again there.
    const attempts = new Map<string, Map<number, number>>()
    const attemptsOf = (storeId: string) => attempts.get(storeId) ?? attempts.set(storeId, new Map()).get(storeId)!

    /**
     * Applies every pending delivery of the store, then pushes the contacts at once when they may have changed: the
     * entity runs one message at a time and each applies all that waits, so a burst of deliveries makes a few pushes,
     * not one each.
     */
    const applyInbox = (storeId: string) =>
      Effect.gen(function*() {
        const jobs = yield* StoreJobs
        const done = yield* jobs.applyInbox(storeId, registeredTarget(storeId), {
          attempts: attemptsOf(storeId), count: countStoreDelivery, unapplicable: rejections.unapplicable
        })
        if (done._tag === "Pushed") yield* settlePush(done.pushed)
      })

    /** Before a sync: the deliveries still pending (their ApplyDelivery lost, or an earlier one that erred) are applied first. */
    const applyBeforeSync = (storeId: string) =>
      applyInbox(storeId).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning(`store ${storeId}: pending webhook deliveries not applied before the sync: ${describe(cause)}`)),
        Effect.provide(context)
      )

    /** After each sync here: an alert when the store's sales data stops being current (the view's rule), or is again. */
    const checkFreshness = (storeId: string) =>
      Effect.flatMap(StoreJobs, (jobs) => jobs.checkFreshness(storeId, Option.none())).pipe(Effect.provide(context))

    return StoreDirectory.of({
      list: registry.list.pipe(
        Effect.map((stores) => stores.map((s) => ({ storeId: s.storeId, every: Duration.millis(s.everyMs), enabled: s.enabled }))),
        Effect.mapError((e) => new StoreWorkFailed({ storeId: "*", message: `the store registry could not be read: ${e.message}` }))
      ),
      syncStore: (storeId, trigger) =>
        Effect.zipRight(applyBeforeSync(storeId), run(storeId, "sync", { streams: STREAMS, mode: { kind: "sync" }, waitForLock: true, waitSeconds: LOCK_WAIT_SECONDS, named: false }, trigger))
          .pipe(Effect.ensuring(checkFreshness(storeId))),
      backfillStore: (storeId, { since, until }) =>
        Effect.flatMap(until === undefined ? latestDay : Effect.succeed(until), (last) =>
          run(storeId, "backfill", { streams: SALES_STREAMS, mode: { kind: "backfill", since, until: last }, waitForLock: true, named: false }, `backfill ${since}…${until ?? "today"}`)),
      pushContacts: (storeId) => push(storeId).pipe(asWorkFailed(storeId), Effect.provide(context)),
      applyDelivery: (storeId) => applyInbox(storeId).pipe(asWorkFailed(storeId), Effect.provide(context))
    })
  }))
