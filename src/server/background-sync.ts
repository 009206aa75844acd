import { Clock, Duration, Effect, Option, Ref, Schedule } from "effect"
import { StoreJobs, type StoreTarget } from "../jobs/store-jobs.js"
import { listWebhooks, type StoreWebhook } from "../store-client/webhooks.js"
import { STREAMS } from "../sync/catalogue.js"
import { errorText } from "../sync/errors.js"
import { Inbox } from "../webhooks/inbox.js"
import { ServeState } from "./serve-state.js"

/** Applied and skipped deliveries are kept this many days (for the status page and to look into). */
const INBOX_DAYS = 30

/**
 * One scheduled sync, the job `shopsync sync` runs, under the same lock: a tick that finds it held is skipped (and,
 * as ever, not recorded in sync.runs). serve pushes the contacts through its own debounced pusher (`afterSync`).
 */
const tick = (target: StoreTarget, afterSync: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const state = yield* ServeState
    const job = { streams: STREAMS, mode: { kind: "sync" }, waitForLock: false, named: false } as const
    const outcome = yield* Effect.flatMap(StoreJobs, (jobs) => jobs.sync(target, job, "none", false)).pipe(Effect.either)
    const again = `trying again in ${Duration.format(Duration.millis(state.syncEveryMs))}`
    if (outcome._tag === "Left") return yield* Effect.logWarning(`background sync: ${errorText(outcome.left)}; ${again}`)
    const report = outcome.right
    if (report._tag === "Locked") return yield* Effect.logInfo("background sync: another run holds this store's lock; this tick is skipped")
    if (Option.isSome(report.failed)) {
      yield* Effect.logWarning(`background sync: streams ${report.failed.value.failures.map((f) => f.stream).join(", ")} failed; ${again}`)
      return yield* afterSync
    }
    yield* Ref.set(state.lastSyncAt, yield* Clock.currentTimeMillis)
    const rows = report.summary.streams.reduce((n, s) => n + s.rows, 0)
    yield* Effect.logInfo(`background sync: run ${report.summary.runId} done, ${rows} row(s) in ${report.summary.seconds.toFixed(1)} s`)
    yield* afterSync
    yield* Effect.flatMap(Inbox, (inbox) => inbox.prune(INBOX_DAYS)).pipe(
      Effect.catchAll((e) => Effect.logWarning(`webhooks: old inbox rows not removed: ${errorText(e)}`)))
  })

/** A webhook that delivers to this server: its URL ends in /webhooks/store or /webhooks/store/<store_id>. */
const ours = (storeId: string) => (w: StoreWebhook) => new RegExp(`/webhooks/store(/${storeId})?/?$`).test(w.delivery_url.split("?")[0]!)

/**
 * Looks at the store's webhook list (when the key may read it) and warns when a subscription of this server is
 * paused or disabled (the store disables one after 5 failed deliveries), once per change of that state.
 */
const checkSubscriptions = (seen: Ref.Ref<string | undefined>) =>
  Effect.gen(function*() {
    const state = yield* ServeState
    const hooks = (yield* listWebhooks).filter(ours(state.storeId))
    const inactive = hooks.filter((w) => w.status !== "active")
    const key = inactive.map((w) => `${w.id}:${w.status}`).join(",")
    const before = yield* Ref.getAndSet(seen, key)
    if (before === key) return
    if (inactive.length > 0) {
      yield* Effect.logWarning(
        `webhooks: ${inactive.length} of this server's subscription(s) are not active, so the store sends nothing for them: ` +
          inactive.map((w) => `${w.topic} (webhook ${w.id}) ${w.status}`).join(", ") +
          "; the background sync still catches those changes. `shopsync store-hooks ensure --url <this server's URL>` re-activates them"
      )
    } else if (before !== undefined) {
      yield* Effect.logInfo("webhooks: every subscription of this server is active again")
    }
  }).pipe(Effect.catchAll((e) => Effect.logDebug(`webhooks: the store's webhook list is not readable: ${errorText(e)}`)))

/**
 * The scheduled sync: at start, then every SHOPSYNC_SYNC_EVERY; each tick also looks at the subscriptions and at the
 * store's freshness (alerting when it changes), current while the last success is at most two intervals old.
 */
export const backgroundSync = (target: StoreTarget, afterSync: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const state = yield* ServeState
    const seen = yield* Ref.make<string | undefined>(undefined)
    const freshness = Effect.flatMap(StoreJobs, (jobs) => jobs.checkFreshness(target.storeId, Option.some(2 * state.syncEveryMs)))
    const once = Effect.zipRight(tick(target, afterSync), Effect.zipRight(checkSubscriptions(seen), freshness))
    yield* Effect.repeat(once, Schedule.spaced(Duration.millis(state.syncEveryMs)))
  })
