import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Clock, Effect, Ref } from "effect"
import type { StoreSettings } from "../config/settings.js"
import { type Answer, send, TransportFailed, UnusableAnswer } from "../http-client/send.js"
import { isTransientStatus, retryAfterMs } from "../http-client/retry-after.js"
import { type RetryPolicy, retrySchedule } from "../http-client/retry.js"
import { StoreAuthFailed, type StoreError, StoreRequestFailed, StoreUnreachable } from "./errors.js"
import { type QueryParams, requestUrl, safeUrl } from "./url.js"

/** What one attempt can end with, before the retries are over. */
type AttemptFailure = TransportFailed | UnusableAnswer | StoreAuthFailed

const isOk = (status: number) => status >= 200 && status < 300

const errorFields = (body: unknown): { code: string | undefined; message: string | undefined } => {
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const b = body as Record<string, unknown>
    return {
      code: typeof b.code === "string" ? b.code : undefined,
      message: typeof b.message === "string" ? b.message : undefined
    }
  }
  return { code: undefined, message: undefined }
}

/** A JSON answer with a 2xx status; 401/403 end at once; anything else may be worth another attempt. */
const judge = (answer: Answer, shown: string): Effect.Effect<Answer, AttemptFailure> =>
  Effect.gen(function*() {
    if (answer.status === 401 || answer.status === 403) {
      const { code, message } = errorFields(answer.body)
      return yield* new StoreAuthFailed({ url: shown, status: answer.status, code, storeMessage: message })
    }
    if (isOk(answer.status) && answer.body !== undefined) return answer
    const now = yield* Clock.currentTimeMillis
    return yield* new UnusableAnswer({ answer, serverWaitMs: retryAfterMs(answer.headers, now) })
  })

/** The error the caller gets once the retries are over. */
const giveUp = (e: AttemptFailure, attempts: number, shown: string): StoreError => {
  switch (e._tag) {
    case "StoreAuthFailed":
      return e
    case "TransportFailed":
      return new StoreUnreachable({ method: "GET", url: shown, reason: e.reason, attempts })
    case "UnusableAnswer": {
      const { status, body, text } = e.answer
      const { code, message } = errorFields(body)
      const said = message ??
        (isOk(status) ? "the body is not JSON" : text.slice(0, 200).replace(/\s+/g, " ").trim() || undefined)
      return new StoreRequestFailed({ method: "GET", url: shown, status, code, storeMessage: said, attempts })
    }
  }
}

/** A 2xx answer that was not JSON may be a proxy's hiccup: it is retried like a 5xx. */
const isTransient = (e: AttemptFailure) =>
  e._tag === "TransportFailed" || (e._tag === "UnusableAnswer" && (isOk(e.answer.status) || isTransientStatus(e.answer.status)))

/**
 * GETs below the API root with the consumer key, at most `concurrency` in flight, each retried on the shared
 * schedule. Returns the JSON answer, or the store error that explains why there is none.
 */
export const makeGetJson = (settings: StoreSettings, policy: RetryPolicy) =>
  Effect.gen(function*() {
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(HttpClientRequest.basicAuth(settings.consumerKey, settings.consumerSecret), HttpClientRequest.acceptJson))
    )
    const requests = yield* Ref.make(0)
    // Held for the exchange itself (not the parse, nor a retry's wait): what the store sees.
    const inFlight = yield* Effect.makeSemaphore(settings.concurrency)

    const attempt = (url: string, shown: string) =>
      Ref.update(requests, (n) => n + 1).pipe(
        Effect.zipRight(send(http, HttpClientRequest.get(url), policy.timeoutMs)),
        inFlight.withPermits(1),
        Effect.flatMap((answer) => judge(answer, shown))
      )

    const getJson = (path: string, params: QueryParams = {}): Effect.Effect<Answer, StoreError> => {
      const url = requestUrl(settings.apiUrl, path, params)
      const shown = safeUrl(url)
      const schedule = retrySchedule<AttemptFailure>(policy, {
        service: "store",
        label: `GET ${shown}`,
        transient: isTransient
      })
      return Effect.retryOrElse(attempt(url, shown), schedule, (e, attempts) => Effect.fail(giveUp(e, attempts, shown)))
    }

    return { getJson, requestCount: Ref.get(requests) }
  })
