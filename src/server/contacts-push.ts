import { Duration, Effect, Option, Queue } from "effect"
import type { MarketingSettings } from "../config/settings.js"
import { StoreJobs } from "../jobs/store-jobs.js"
import { errorText } from "../sync/errors.js"

/** Pushes are at most this frequent: changes arriving meanwhile go in the next one, together. */
const DEBOUNCE = Duration.seconds(1)

/**
 * A debounced contact push: `changed` only notes that contacts may have changed; a fiber of the caller's scope
 * then enqueues and sends them, at most once per second. Without the marketing settings it does nothing.
 */
export const makeContactsPusher = (settings: Option.Option<MarketingSettings>, storeId: string) =>
  Effect.gen(function*() {
    if (Option.isNone(settings)) return Effect.void
    const queue = yield* Queue.sliding<void>(1)
    const jobs = yield* StoreJobs
    const once = jobs.push(storeId, settings.value).pipe(
      Effect.tap(({ result: r }) => r.enqueued > 0 || r.created + r.updated + r.failed > 0
        ? Effect.logInfo(`marketing: ${r.created} created, ${r.updated} updated, ${r.failed} failed, ${r.outbox.pending} pending`)
        : Effect.void),
      Effect.catchAll((e) => Effect.logWarning(`marketing push failed (the contacts stay pending): ${errorText(e)}`))
    )
    yield* Queue.take(queue).pipe(Effect.zipRight(once), Effect.zipRight(Effect.sleep(DEBOUNCE)), Effect.forever, Effect.forkScoped)
    return Queue.offer(queue, undefined).pipe(Effect.asVoid)
  })
