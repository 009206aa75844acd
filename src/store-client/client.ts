import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Context, Duration, Effect, Layer, Ref } from "effect"
import type { StoreSettings } from "../config/settings.js"
import { StoreAuthFailed, type StoreError, StoreRequestFailed, StoreUnreachable } from "./errors.js"

export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>

/** One page of a list endpoint, with the paging headers the sync relies on. */
export interface Page {
  readonly items: ReadonlyArray<unknown>
  readonly total: number
  readonly totalPages: number
  /** The store's clock (HTTP Date header): upper bounds are frozen against it, not ours. */
  readonly serverTime: Date | undefined
  /** The body as received (the items' JSON array): staged as is, it need not be serialized again. */
  readonly json: string
}

export interface RetryPolicy {
  readonly maxAttempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly timeoutMs: number
}

export class StoreClient extends Context.Tag("shopsync/StoreClient")<StoreClient, {
  readonly storeId: string
  readonly perPage: number
  readonly settleSeconds: number
  /** Requests allowed in flight at once (STORE_CONCURRENCY); callers may ask for more, they queue. */
  readonly concurrency: number
  /** GET a list endpoint; 404 is an error like any other. */
  readonly list: (path: string, params?: QueryParams) => Effect.Effect<Page, StoreError>
  /** GET one resource (or a report). */
  readonly get: (path: string, params?: QueryParams) => Effect.Effect<unknown, StoreError>
  /** Requests sent so far (retries included), for summaries and benchmarks. */
  readonly requestCount: Effect.Effect<number>
}>() {}

interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  readonly text: string
}

class Transport {
  constructor(readonly reason: string) {}
}

const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500

/** Seconds from Retry-After (delta or HTTP date), or RateLimit-Reset as a fallback hint. */
export const retryAfterMs = (headers: Readonly<Record<string, string>>, now: number): number => {
  const value = headers["retry-after"] ?? headers["ratelimit-retry-after"]
  if (value === undefined) return 0
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isFinite(date) ? Math.max(0, date - now) : 0
}

/** Exponential backoff with jitter, never shorter than what the server asked for. */
export const backoffMs = (policy: RetryPolicy, attempt: number, serverAskedMs: number, random: number): number => {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt)
  return Math.max(serverAskedMs, Math.round(exponential * (0.5 + random / 2)))
}

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

/** Never show credentials, even if someone put them in STORE_API_URL. */
export const safeUrl = (url: string): string => {
  const u = new URL(url)
  u.username = ""
  u.password = ""
  for (const key of ["consumer_key", "consumer_secret"]) if (u.searchParams.has(key)) u.searchParams.set(key, "***")
  return u.toString()
}

export const makeStoreClient = (settings: StoreSettings, policy: RetryPolicy) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const requests = yield* Ref.make(0)
    // Held for the exchange itself (not the parse, nor a retry's wait): what the store sees.
    const inFlight = yield* Effect.makeSemaphore(settings.concurrency)

    const exchange = (url: string) =>
      Effect.gen(function*() {
        yield* Ref.update(requests, (n) => n + 1)
        const request = HttpClientRequest.get(url).pipe(
          HttpClientRequest.basicAuth(settings.consumerKey, settings.consumerSecret),
          HttpClientRequest.acceptJson
        )
        const response = yield* http.execute(request)
        return { status: response.status, headers: response.headers, text: yield* response.text }
      }).pipe(
        Effect.scoped,
        Effect.timeoutFail({
          duration: Duration.millis(policy.timeoutMs),
          onTimeout: () => new Transport(`no answer within ${policy.timeoutMs} ms`)
        }),
        Effect.catchTag("RequestError", (e) => Effect.fail(new Transport(e.cause ? String(e.cause) : e.message))),
        Effect.catchTag("ResponseError", (e) => Effect.fail(new Transport(e.message))),
        inFlight.withPermits(1)
      )

    const send = (url: string): Effect.Effect<Answer, Transport> =>
      Effect.map(exchange(url), (answer) => {
        let body: unknown = undefined
        try {
          body = answer.text === "" ? undefined : JSON.parse(answer.text)
        } catch {
          body = undefined
        }
        return { ...answer, body }
      })

    const fetchJson = (path: string, params: QueryParams = {}): Effect.Effect<Answer, StoreError> => {
      const url = new URL(settings.apiUrl + path)
      for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, String(v))
      const shown = safeUrl(url.toString())
      const attempt = (n: number): Effect.Effect<Answer, StoreError> =>
        send(url.toString()).pipe(
          Effect.flatMap((answer): Effect.Effect<Answer, StoreError | Transport> => {
            const { code, message } = errorFields(answer.body)
            if (answer.status === 401 || answer.status === 403) {
              return Effect.fail(new StoreAuthFailed({ url: shown, status: answer.status, code, storeMessage: message }))
            }
            const ok = answer.status >= 200 && answer.status < 300
            if (ok && answer.body !== undefined) return Effect.succeed(answer)
            const failure = new StoreRequestFailed({
              method: "GET",
              url: shown,
              status: answer.status,
              code,
              storeMessage: message ?? (ok ? "the body is not JSON" : answer.text.slice(0, 200).replace(/\s+/g, " ").trim() || undefined),
              attempts: n + 1
            })
            const retry = ok || isRetryableStatus(answer.status)
            if (!retry || n + 1 >= policy.maxAttempts) return Effect.fail(failure)
            return retryAfter(n, retryAfterMs(answer.headers, Date.now()), `${answer.status}`)
          }),
          Effect.catchIf((e): e is Transport => e instanceof Transport, (e) =>
            n + 1 >= policy.maxAttempts
              ? Effect.fail(new StoreUnreachable({ method: "GET", url: shown, reason: e.reason, attempts: n + 1 }))
              : retryAfter(n, 0, e.reason))
        )
      const retryAfter = (n: number, askedMs: number, why: string) => {
        const delay = backoffMs(policy, n, askedMs, Math.random())
        return Effect.logWarning(`store: ${why} on GET ${shown}; retrying in ${delay} ms (attempt ${n + 2} of ${policy.maxAttempts})`).pipe(
          Effect.zipRight(Effect.sleep(Duration.millis(delay))),
          Effect.zipRight(attempt(n + 1))
        )
      }
      return attempt(0)
    }

    const header = (answer: Answer, name: string) => {
      const n = Number(answer.headers[name])
      return Number.isFinite(n) ? n : undefined
    }

    return StoreClient.of({
      storeId: settings.storeId,
      perPage: settings.perPage,
      settleSeconds: settings.settleSeconds,
      concurrency: settings.concurrency,
      list: (path, params) =>
        fetchJson(path, params).pipe(
          Effect.flatMap((answer) => {
            if (!Array.isArray(answer.body)) {
              return Effect.fail(new StoreRequestFailed({
                method: "GET", url: safeUrl(settings.apiUrl + path), status: answer.status, code: undefined,
                storeMessage: "expected a JSON array from a list endpoint", attempts: 1
              }))
            }
            const items = answer.body as ReadonlyArray<unknown>
            const date = answer.headers["date"] ? new Date(answer.headers["date"]) : undefined
            return Effect.succeed<Page>({
              items,
              total: header(answer, "x-wp-total") ?? items.length,
              totalPages: header(answer, "x-wp-totalpages") ?? 1,
              serverTime: date && !Number.isNaN(date.getTime()) ? date : undefined,
              json: answer.text
            })
          })
        ),
      get: (path, params) => fetchJson(path, params).pipe(Effect.map((a) => a.body)),
      requestCount: Ref.get(requests)
    })
  })

export const defaultRetryPolicy = (settings: StoreSettings): RetryPolicy => ({
  maxAttempts: settings.maxAttempts,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: settings.requestTimeoutMs
})

export const StoreClientLive = (settings: StoreSettings, policy: RetryPolicy = defaultRetryPolicy(settings)) =>
  Layer.effect(StoreClient, makeStoreClient(settings, policy))
