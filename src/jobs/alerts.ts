import * as os from "node:os"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Cause, Clock, Data, DateTime, Effect, Exit, FiberSet, Option, Redacted, Schedule, Schema } from "effect"
import { readSecretFile } from "../config/secret-file.js"
import { alertHost, alertSettingsConfig, alertUrlProblem, databaseUrlConfig } from "../config/settings.js"
import { send, viaClient } from "../http-client/send.js"
import { untraced } from "../http-client/spans.js"
import { errorText, RunLockHeld } from "../sync/errors.js"
import { AlertPayload, scrub } from "./alert-payload.js"
import { type Freshness, lookAtFreshness, transition, WATCHED_STREAM } from "./freshness-watch.js"
import type { StoreTarget, SyncReport } from "./store-jobs.js"

/** SHOPSYNC_ALERT_WEBHOOK_URL_FILE cannot be read, or holds no usable URL. */
export class AlertWebhookUrlInvalid extends Data.TaggedError("AlertWebhookUrlInvalid")<{ readonly problem: string }> {
  override get message() {
    return this.problem
  }
}

/** Where alerts go, and the variable that said so (named in warnings; the URL never is, only its host). */
interface Receiver {
  readonly url: Redacted.Redacted<string>
  readonly variable: string
}

const loadReceiver = Effect.gen(function*() {
  const settings = yield* alertSettingsConfig
  if (Option.isSome(settings.url)) return Option.some<Receiver>({ url: settings.url.value, variable: "SHOPSYNC_ALERT_WEBHOOK_URL" })
  if (Option.isNone(settings.urlFile)) return Option.none<Receiver>()
  const variable = "SHOPSYNC_ALERT_WEBHOOK_URL_FILE"
  const file = settings.urlFile.value
  const text = yield* readSecretFile(variable, file, "whoever reads it can post to the alert channel",
    (problem) => new AlertWebhookUrlInvalid({ problem: `${variable} ${file} ${problem}` }))
  const problem = alertUrlProblem(`${variable} ${file}`, text.trim(), settings.allowHttp)
  if (problem !== undefined) return yield* new AlertWebhookUrlInvalid({ problem })
  return Option.some<Receiver>({ url: Redacted.make(text.trim()), variable })
})

/** One try may take this long; a receiver that takes longer is as good as down. */
const ATTEMPT_TIMEOUT_MS = 10_000
/** Two more tries, after 1 s and 2 s: a receiver restarting gets the alert, a dead one costs the run's host ~33 s at most. */
const RETRIES = Schedule.intersect(Schedule.exponential("1 second"), Schedule.recurs(2))

/** Why a delivery failed, without the URL; 4xx other than 408 and 429 are not tried again. */
class NotDelivered extends Data.TaggedError("NotDelivered")<{ readonly reason: string; readonly retriable: boolean }> {}

/** The credentials a store's errors could echo (the store's key, the marketing service's), scrubbed from the text. */
const secretsOf = (target: StoreTarget): ReadonlyArray<string> => [
  Redacted.value(target.settings.consumerKey),
  Redacted.value(target.settings.consumerSecret),
  ...Option.match(target.marketing, { onNone: () => [], onSome: (m) => [Redacted.value(m.clientId), Redacted.value(m.clientSecret)] })
]

/** A job's failure in words: the failure's own message, else a defect's first line. */
const failureText = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.failureOption(cause), { onSome: errorText, onNone: () => Cause.pretty(cause).split("\n")[0] ?? "failed" })

/**
 * Alerts to SHOPSYNC_ALERT_WEBHOOK_URL (docs/operating.md, "Alerts"): a failed sync or backfill, from every host (StoreJobs
 * calls `watchRun`), and a store whose sales data stops being current, or is again (the long-running hosts call
 * `checkFreshness` after each scheduled run). Without a receiver, nothing is done. A delivery never blocks nor fails
 * a job: it runs on its own fiber, and the service's end (the host's) waits for the deliveries in flight, which are bounded.
 * Freshness as last seen is kept per process: a restart, or a store moving to another worker, alerts a store that is
 * still not current once more.
 */
export class Alerts extends Effect.Service<Alerts>()("shopsync/Alerts", {
  scoped: Effect.gen(function*() {
    const receiver = yield* loadReceiver
    const http = untraced(yield* HttpClient.HttpClient)
    const sql = yield* SqlClient.SqlClient
    const pending = yield* FiberSet.make()
    // Added after the set, so it runs before the set's own finalizer interrupts what is left.
    yield* Effect.addFinalizer(() => FiberSet.awaitEmpty(pending))
    const databasePassword = Option.flatMap(yield* databaseUrlConfig, (url) => {
      const text = Redacted.value(url)
      return URL.canParse(text) ? Option.some(decodeURIComponent(new URL(text).password)) : Option.none()
    })
    const host = os.hostname()
    const seen = new Map<string, Freshness>()

    const post = (to: Receiver, payload: AlertPayload) =>
      send(viaClient(http, ATTEMPT_TIMEOUT_MS), HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post(Redacted.value(to.url)), Schema.encodeSync(AlertPayload)(payload))).pipe(
        Effect.mapError((e) => new NotDelivered({ reason: e.reason, retriable: true })),
        Effect.filterOrFail((a) => a.status >= 200 && a.status < 300, (a) =>
          new NotDelivered({ reason: `it answered ${a.status}`, retriable: a.status >= 500 || a.status === 408 || a.status === 429 })),
        Effect.retry({ schedule: RETRIES, while: (e) => e.retriable }),
        Effect.matchEffect({
          onSuccess: () => Effect.logInfo(`alerts: ${payload.event} of store ${payload.store} sent to ${alertHost(Redacted.value(to.url))}`),
          onFailure: (e) =>
            Effect.logWarning(`alerts: ${payload.event} of store ${payload.store} not delivered to ${alertHost(Redacted.value(to.url))} ` +
              `(${to.variable}): ${e.reason}; the run is not affected. Check that the receiver is up and the setting is right`)
        })
      )

    /** Sends in the background; the service's end waits for it. */
    const alert = (fields: Omit<AlertPayload, "at" | "host">) =>
      Option.match(receiver, {
        onNone: () => Effect.void,
        onSome: (to) =>
          Effect.gen(function*() {
            const at = DateTime.formatIso(DateTime.unsafeMake(yield* Clock.currentTimeMillis))
            yield* FiberSet.run(pending, post(to, { ...fields, at, host }))
          })
      })

    const runFailed = (target: StoreTarget, command: "sync" | "backfill", failure: string, run: number | null, failedStreams?: ReadonlyArray<string>) => {
      const error = scrub(failure, [...secretsOf(target), ...Option.toArray(databasePassword), ...Option.toArray(Option.map(receiver, (r) => Redacted.value(r.url)))])
      const text = scrub(`shopsync: ${command} of store ${target.storeId} failed${run === null ? "" : ` (run ${run})`} on ${host}: ${error}`)
      return alert({ event: "run_failed", store: target.storeId, command, run, ...(failedStreams ? { failed_streams: failedStreams } : {}), error, text })
    }

    return {
      /** `job` with a run_failed alert when it fails or its report carries a failure (`verdict`); a lock held elsewhere is no failure. */
      watchRun: <E, R, F>(job: Effect.Effect<SyncReport<F>, E, R>, target: StoreTarget, command: "sync" | "backfill", verdict: (report: SyncReport<F>) => Option.Option<unknown>) =>
        Effect.onExit(job, (exit) => {
          if (Exit.isFailure(exit)) return Cause.isInterruptedOnly(exit.cause) ? Effect.void : runFailed(target, command, failureText(exit.cause), null)
          const failure = verdict(exit.value)
          if (Option.isNone(failure) || failure.value instanceof RunLockHeld || exit.value._tag !== "Ran") return Effect.void
          const { summary, failed } = exit.value
          return runFailed(target, command, errorText(failure.value), summary.runId, Option.getOrUndefined(Option.map(failed, (f) => f.failures.map((s) => s.stream))))
        }),

      /**
       * Looks at the store's sales data (`analytics.freshness`, `windowMs` replacing its rule, see freshness-watch.ts)
       * and alerts when it stops being current and when it recovers, not at every look. Never fails.
       */
      checkFreshness: (storeId: string, windowMs: Option.Option<number>) =>
        Option.isNone(receiver) ? Effect.void : Effect.gen(function*() {
          const look = yield* lookAtFreshness(storeId, windowMs)
          if (Option.isNone(look)) return
          const { freshness, lastSuccessAt } = look.value
          const event = transition(seen.get(storeId), freshness)
          seen.set(storeId, freshness)
          if (event === undefined) return
          const since = lastSuccessAt ?? "never"
          const text = event === "stale"
            ? `shopsync: store ${storeId}'s ${WATCHED_STREAM} data is not current: last successful run ${since} (seen on ${host})`
            : `shopsync: store ${storeId}'s ${WATCHED_STREAM} data is current again: last successful run ${since} (seen on ${host})`
          yield* alert({ event, store: storeId, stream: WATCHED_STREAM, last_success_at: lastSuccessAt, text })
        }).pipe(
          Effect.provideService(SqlClient.SqlClient, sql),
          Effect.catchAll((e) => Effect.logWarning(`alerts: the freshness of store ${storeId} could not be read: ${errorText(e)}`))
        )
    }
  }),
  dependencies: [NodeHttpClient.layerUndici]
}) {}

