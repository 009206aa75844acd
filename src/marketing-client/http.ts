import type { HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { Duration, Effect } from "effect"
import type { MarketingSettings } from "../config/settings.js"
import { backoffMs, retryAfterMs } from "../store-client/client.js"
import type { MarketingError } from "./errors.js"

/** How hard a request is retried. Delays grow exponentially with jitter, never shorter than the service asked. */
export interface RetryPolicy {
  readonly maxAttempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly timeoutMs: number
  /** A Retry-After longer than this is not waited out: the run gives up and leaves the work for the next one. */
  readonly maxServerWaitMs: number
}

export const marketingRetryPolicy = (settings: MarketingSettings): RetryPolicy => ({
  maxAttempts: settings.maxAttempts,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: settings.requestTimeoutMs,
  maxServerWaitMs: 120_000
})

/** One HTTP exchange, body read and parsed (undefined when empty or not JSON). */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  readonly text: string
  /** The request as sent, after the token was attached. */
  readonly request: HttpClientRequest.HttpClientRequest
}

/** The request produced no answer (refused, reset, timed out). */
export class NoAnswer {
  constructor(readonly reason: string) {}
}

/** Sends once; transport failures become NoAnswer, a failure to get a token passes through. */
export const sendOnce = (
  http: HttpClient.HttpClient.With<HttpClientError.HttpClientError | MarketingError>,
  request: HttpClientRequest.HttpClientRequest,
  timeoutMs: number
): Effect.Effect<Answer, NoAnswer | MarketingError> =>
  Effect.gen(function*() {
    const response = yield* http.execute(request)
    const text = yield* response.text
    let body: unknown = undefined
    try {
      body = text.trim() === "" ? undefined : JSON.parse(text)
    } catch {
      body = undefined
    }
    return { status: response.status, headers: response.headers, body, text, request: response.request }
  }).pipe(
    Effect.timeoutFail({ duration: Duration.millis(timeoutMs), onTimeout: () => new NoAnswer(`no answer within ${timeoutMs} ms`) }),
    Effect.catchTags({
      RequestError: (e) => Effect.fail(new NoAnswer(transportReason(e))),
      ResponseError: (e) => Effect.fail(new NoAnswer(transportReason(e)))
    })
  )

/** The system error code (ECONNRESET…) when there is one: short, and free of anything the request carried. */
const transportReason = (e: HttpClientError.HttpClientError): string => {
  const cause = e.cause as { code?: string; message?: string; cause?: { code?: string } } | undefined
  return cause?.code ?? cause?.cause?.code ?? (e._tag === "RequestError" ? `${e.reason} error` : `${e.reason} error reading the answer`)
}

/** What the service said in an error answer: its `errors[0].message`, an OAuth description, or a short text. */
export const serviceMessage = (answer: Pick<Answer, "body" | "text">): string | undefined => {
  const body = answer.body as Record<string, unknown> | undefined
  if (body && typeof body === "object") {
    const errors = body.errors
    const first = Array.isArray(errors) ? errors[0] : errors && typeof errors === "object" ? Object.values(errors)[0] : undefined
    if (first && typeof first === "object" && typeof (first as { message?: unknown }).message === "string") {
      return (first as { message: string }).message
    }
    for (const key of ["error_description", "message", "error"]) if (typeof body[key] === "string") return body[key] as string
  }
  const title = /<title>([^<]*)<\/title>/i.exec(answer.text)?.[1]
  const text = (title ?? answer.text).replace(/\s+/g, " ").trim()
  return text === "" ? undefined : text.slice(0, 200)
}

export const isTransientStatus = (status: number) => status === 408 || status === 429 || status >= 500

/**
 * How long the service asked us to wait: Retry-After when present. Without it, a 429's X-RateLimit-Reset is
 * only a hint, capped at the policy's longest delay: an hourly quota can reset an hour away, and a run that
 * keeps being refused simply gives up and leaves the work pending.
 */
export const serverWaitMs = (answer: Pick<Answer, "status" | "headers">, now: number, policy: RetryPolicy): number => {
  if (answer.headers["retry-after"] !== undefined) return retryAfterMs(answer.headers, now)
  const reset = Number(answer.headers["x-ratelimit-reset"])
  if (answer.status !== 429 || !Number.isFinite(reset)) return 0
  return Math.min(policy.maxDelayMs, Math.max(0, reset * 1000 - now))
}

/** A failed attempt worth repeating; `failure` is what the caller gets once the attempts run out. */
export class Retry {
  constructor(
    readonly why: string,
    readonly waitMs: number,
    readonly failure: (attempts: number) => MarketingError
  ) {}
}

/**
 * Runs `attempt` until it succeeds, fails with something other than Retry, or the attempts run out.
 * A server-requested wait longer than the policy allows ends the retries at once.
 */
export const withRetries = <A, E, R>(
  policy: RetryPolicy,
  label: string,
  attempt: Effect.Effect<A, E | Retry, R>
): Effect.Effect<A, E | MarketingError, R> => {
  const go = (n: number): Effect.Effect<A, E | MarketingError, R> =>
    attempt.pipe(
      Effect.catchIf((e): e is Retry => e instanceof Retry, (retry) => {
        if (n + 1 >= policy.maxAttempts || retry.waitMs > policy.maxServerWaitMs) return Effect.fail(retry.failure(n + 1))
        const delay = backoffMs(policy, n, retry.waitMs, Math.random())
        return Effect.logWarning(`marketing: ${retry.why} on ${label}; retrying in ${delay} ms (attempt ${n + 2} of ${policy.maxAttempts})`).pipe(
          Effect.zipRight(Effect.sleep(Duration.millis(delay))),
          Effect.zipRight(go(n + 1))
        )
      })
    )
  return go(0)
}
