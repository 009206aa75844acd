import * as HttpClient from "@effect/platform/HttpClient"
import { Effect } from "effect"
import type { Answer } from "./send.js"

/**
 * The platform's own `http.client` span records `url.full` and `url.query` as sent: with STORE_AUTH=query or oauth1
 * that is the consumer key, the secret or a signature, and a marketing search carries an email address. The
 * clients make their own spans instead (`requestSpans`), from what they already show in logs; this turns the
 * platform's off (and with it the traceparent header: a store has no use for our trace ids).
 */
export const untraced = <E, R>(http: HttpClient.HttpClient.With<E, R>) => HttpClient.withTracerDisabledWhen(http, () => true)

/** The HTTP status an answer, or an error made of one, carries. */
const statusOf = (e: unknown): number | undefined => {
  const x = e as { answer?: Partial<Answer>; status?: unknown } | undefined
  return typeof x?.answer?.status === "number" ? x.answer.status : typeof x?.status === "number" ? x.status : undefined
}

/**
 * One request with its retries as `<service>.request`, each try as `<service>.attempt` beneath it (the gaps between
 * attempts are the retry waits). Attributes: method, the shown URL (credentials already taken out by the caller),
 * the attempt number, the answer's status; never headers or bodies.
 */
export const requestSpans = (service: string, method: string, shown: string) => {
  // A malformed base URL fails in the request, as it did before spans: not here.
  const path = URL.canParse(shown) ? new URL(shown).pathname : shown
  return <A, E, R, E2, R2>(attempt: Effect.Effect<A, E, R>, retried: (tried: Effect.Effect<A, E, R>) => Effect.Effect<A, E2, R2>) =>
    Effect.suspend(() => {
      let n = 0
      const status = (s: number | undefined) => (s === undefined ? Effect.void : Effect.annotateCurrentSpan("http.response.status_code", s))
      const tried = Effect.suspend(() => {
        n += 1
        return attempt.pipe(
          Effect.tapBoth({ onSuccess: (a) => status(statusOf(a)), onFailure: (e) => status(statusOf(e)) }),
          Effect.withSpan(`${service}.attempt`, { kind: "client", attributes: { "shopsync.attempt": n } })
        )
      })
      return retried(tried).pipe(
        Effect.tapBoth({ onSuccess: (a) => status(statusOf(a)), onFailure: (e) => status(statusOf(e)) }),
        Effect.ensuring(Effect.suspend(() => Effect.annotateCurrentSpan("shopsync.attempts", n))),
        Effect.withSpan(`${service}.request`, {
          kind: "client",
          attributes: { "http.request.method": method, "url.path": path, "shopsync.url": shown }
        })
      )
    })
}
