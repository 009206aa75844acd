import { Clock, Context, Duration, Effect, Layer, Metric, Ref, Schedule, Schema } from "effect"
import { webhookLogEveryConfig } from "../config/service-settings.js"

/**
 * Deliveries the webhook listener refuses, by cause: counted (`shopsync_webhook_rejections_total` on /metrics, and
 * the same tally on the status page) and logged at most once a minute per cause (SHOPSYNC_WEBHOOK_LOG_EVERY), naming
 * the fix. A flood of badly signed deliveries is one line a minute, not one per request; the log never holds a body,
 * a secret or a store id taken from the URL. Deliveries stored but not applicable (the inbox worker's) are logged by the same rule under
 * `unapplicable`; the inbox counts those (failed), so they are not counted here.
 */
export const RejectionCause = Schema.Literal(
  "signature", "no_secret", "secret_unreadable", "wrong_url", "too_large", "headers", "busy", "inbox_full", "warehouse"
)
export type RejectionCause = typeof RejectionCause.Type

/** A cause the log is rate-limited by: the listener's refusals, and deliveries stored that cannot be applied. */
type LoggedCause = RejectionCause | "unapplicable"
const LOGGED_CAUSES: ReadonlyArray<LoggedCause> = [...RejectionCause.literals, "unapplicable"]

/** What each cause is, and what the operator can do about it. */
export const REJECTIONS: Readonly<Record<RejectionCause, { readonly what: string; readonly fix: string }>> = {
  signature: {
    what: "bad or missing signature (401)",
    fix: "the store signs with another secret than this process checks with: give the store's webhooks the secret in " +
      "STORE_WEBHOOK_SECRET (serve) or the store's registered webhook secret (worker), e.g. with `shopsync store-hooks ensure`; " +
      "on a worker, deliveries to store ids that are not registered count here too"
  },
  no_secret: {
    what: "no webhook secret to check the signature with (401)",
    fix: "set STORE_WEBHOOK_SECRET (serve), or register the store's with `shopsync stores add … --webhook-secret-env` (worker)"
  },
  secret_unreadable: {
    what: "the store's webhook secret could not be read (401 or 503)",
    fix: "check that the warehouse answers and that SHOPSYNC_MASTER_KEY opens the registry's secrets"
  },
  wrong_url: {
    what: "posted to a URL of no store here (404)",
    fix: "subscribe the webhooks to /webhooks/store/<store_id> of this server (`shopsync store-hooks ensure --url …`)"
  },
  too_large: {
    what: "body over 1 MiB, or cut off (413)",
    fix: "nothing is lost: the background sync reads what the delivery changed; many of them mean a client other than the store"
  },
  headers: {
    what: "no webhook topic or id header (400)",
    fix: "only the store's own webhook deliveries are taken: look at what else posts to this URL"
  },
  busy: {
    what: "too many bodies arriving at once (503, the 16 MiB body budget)",
    fix: "the store sends them again; if it lasts, slow or flooding clients reach the listener: put a proxy with limits in front"
  },
  inbox_full: {
    what: "the store's inbox is full (503)",
    fix: "pending and failed deliveries fill SHOPSYNC_INBOX_MAX_MB: raise it, or look at the failed ones and remove them " +
      "(DELETE FROM sync.webhook_inbox WHERE state = 'failed')"
  },
  warehouse: {
    what: "the warehouse did not answer (503)",
    fix: "check that PostgreSQL is up and reachable (DATABASE_URL); the background sync reads what the delivery changed"
  }
}

const UNAPPLICABLE = {
  what: "stored, but not applicable (an unknown topic, a body that does not fit)",
  fix: "each stays failed in the inbox with its reason and is not tried again; the background sync reads what the store " +
    "changed. Many mean the store sends what shopsync does not take: SELECT topic, reason FROM sync.webhook_inbox WHERE state = 'failed'"
}

export const webhookRejections = Metric.counter("shopsync_webhook_rejections_total", {
  description: "Webhook deliveries the listener refused since the process started, by cause",
  incremental: true
})

/** A cause's count, as the status page shows it. */
export const RejectedCount = Schema.Struct({ cause: RejectionCause, count: Schema.Number })
export type RejectedCount = typeof RejectedCount.Type

/**
 * One cause is logged at most once a window (SHOPSYNC_WEBHOOK_LOG_EVERY, default a minute); what comes between is
 * summed into its next line. Causes with rejections not yet logged are looked at every 5 s (a fifth of a shorter window).
 */
const sweepMs = (windowMs: number) => Math.min(5_000, windowMs / 5)

/** The window as its lines name it: "minute", "5 minutes", "10 seconds". */
const windowText = (windowMs: number) =>
  windowMs === 60_000 ? "minute" : windowMs % 60_000 === 0 ? `${windowMs / 60_000} minutes` : `${windowMs / 1000} seconds`

interface Tally {
  /** When this cause was last logged (epoch ms; undefined: never). */
  readonly loggedAt: number | undefined
  readonly unlogged: number
  /** The latest detail given (an error's text), shown with the next line. */
  readonly detail: string | undefined
}

export class WebhookRejections extends Context.Tag("shopsync/WebhookRejections")<WebhookRejections, {
  /** Counts a refused delivery under its store (`storeId` is a registered store, or a fixed tag) and logs once a window. */
  readonly record: (cause: RejectionCause, storeId: string, detail?: string) => Effect.Effect<void>
  /** The causes the store's deliveries were refused for since the process started, with their counts. */
  readonly counts: (storeId: string) => Effect.Effect<ReadonlyArray<RejectedCount>>
  /** Logs a delivery stored but not applicable (`detail`: which, and why) once a window; the inbox counts it as failed. */
  readonly unapplicable: (detail: string) => Effect.Effect<void>
}>() {}

const logLine = (windowMs: number, cause: LoggedCause, count: number, detail: string | undefined) => {
  const { what, fix } = cause === "unapplicable" ? UNAPPLICABLE : REJECTIONS[cause]
  return Effect.logWarning(
    `webhooks: ${count} ${count === 1 ? "delivery" : "deliveries"} rejected in the last ${windowText(windowMs)}: ${what}` +
      `${detail === undefined ? "" : ` (last: ${detail})`}; ${fix}`
  ).pipe(Effect.annotateLogs({ cause, rejected: count }))
}

/**
 * The tally of one process. `tagStore`: a worker tags the counter with the store (several stores), `serve` does not
 * (its one store), as shopsync_webhook_deliveries_total. Runs the sweep until its scope closes.
 */
export const WebhookRejectionsLive = (options: { readonly tagStore: boolean }) =>
  Layer.scoped(WebhookRejections, Effect.gen(function*() {
    const windowMs = yield* webhookLogEveryConfig
    const tallies = yield* Ref.make(new Map<LoggedCause, Tally>())
    const counts = yield* Ref.make(new Map<string, ReadonlyMap<RejectionCause, number>>())
    const series = (cause: RejectionCause, storeId: string) => {
      const byCause = Metric.tagged(webhookRejections, "cause", cause)
      return options.tagStore ? Metric.tagged(byCause, "store", storeId) : byCause
    }
    // serve exports every cause from the start, at 0 (a worker's series appear with their store's first rejection).
    if (!options.tagStore) yield* Effect.forEach(RejectionCause.literals, (cause) => Metric.value(series(cause, "")), { discard: true })

    /** The tally to log for `cause` now (undefined: nothing, or its last line is under a window old), counting `added` more. */
    const due = (now: number, cause: LoggedCause, added: number, detail: string | undefined) =>
      Ref.modify(tallies, (held): readonly [Tally | undefined, Map<LoggedCause, Tally>] => {
        const was = held.get(cause)
        const tally: Tally = { loggedAt: was?.loggedAt, unlogged: (was?.unlogged ?? 0) + added, detail: detail ?? was?.detail }
        const ready = tally.unlogged > 0 && (tally.loggedAt === undefined || now - tally.loggedAt >= windowMs)
        return ready ? [tally, new Map(held).set(cause, { loggedAt: now, unlogged: 0, detail: undefined })] : [undefined, added > 0 ? new Map(held).set(cause, tally) : held]
      })

    /** Logs `cause` now when its last line is a window old, else leaves it to the sweep. */
    const log = (cause: LoggedCause, detail: string | undefined) =>
      Effect.gen(function*() {
        const ready = yield* due(yield* Clock.currentTimeMillis, cause, 1, detail)
        if (ready !== undefined) yield* logLine(windowMs, cause, ready.unlogged, ready.detail)
      })

    const record = (cause: RejectionCause, storeId: string, detail?: string) =>
      Effect.gen(function*() {
        yield* Metric.increment(series(cause, storeId))
        yield* Ref.update(counts, (held) => {
          const store = new Map(held.get(storeId) ?? [])
          return new Map(held).set(storeId, store.set(cause, (store.get(cause) ?? 0) + 1))
        })
        yield* log(cause, detail)
      })

    const sweep = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      for (const cause of LOGGED_CAUSES) {
        const ready = yield* due(now, cause, 0, undefined)
        if (ready !== undefined) yield* logLine(windowMs, cause, ready.unlogged, ready.detail)
      }
    })
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced(Duration.millis(sweepMs(windowMs)))))

    return WebhookRejections.of({
      record,
      unapplicable: (detail) => log("unapplicable", detail),
      counts: (storeId) =>
        Effect.map(Ref.get(counts), (held) => RejectionCause.literals.flatMap((cause) => {
          const count = held.get(storeId)?.get(cause) ?? 0
          return count === 0 ? [] : [{ cause, count }]
        }))
    })
  }))
