import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Context, Effect, Layer, Redacted, Ref } from "effect"
import type { MarketingSettings } from "../config/settings.js"
import { type MarketingError, MarketingAuthFailed, MarketingRequestFailed, MarketingUnreachable } from "./errors.js"
import {
  type Answer, isTransientStatus, marketingRetryPolicy, NoAnswer, Retry, type RetryPolicy, sendOnce, serverWaitMs, serviceMessage,
  withRetries
} from "./http.js"
import { TokenService } from "./token.js"

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

export interface CallOptions {
  readonly query?: Readonly<Record<string, string | number | boolean>>
  readonly json?: unknown
  /**
   * Whether sending twice is harmless (default true). A request that may have been carried out before its
   * answer was lost (a creation) is not repeated on 5xx or a dropped connection: its caller looks first.
   */
  readonly idempotent?: boolean
}

/** Authenticated JSON requests below {base}/api: bearer token, retries, one retry after a rejected token. */
export class MarketingApi extends Context.Tag("shopsync/MarketingApi")<MarketingApi, {
  readonly baseUrl: string
  /** A 2xx answer, or the error that explains why there is none. */
  readonly call: (method: Method, path: string, options?: CallOptions) => Effect.Effect<Answer, MarketingError>
  /** API requests sent so far (retries included, token requests not). */
  readonly requestCount: Effect.Effect<number>
}>() {}

class Unauthorized {
  constructor(readonly answer: Answer) {}
}

const bearerOf = (request: HttpClientRequest.HttpClientRequest): Redacted.Redacted<string> | undefined => {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers["authorization"] ?? "")
  return match ? Redacted.make(match[1]!) : undefined
}

export const makeMarketingApi = (settings: MarketingSettings, policy: RetryPolicy) =>
  Effect.gen(function*() {
    const tokens = yield* TokenService
    const requests = yield* Ref.make(0)
    // The token is attached per attempt, so a retry after a rejected token carries the new one.
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequestEffect((request) => Effect.map(tokens.get, (token) => HttpClientRequest.bearerToken(request, token)))
    )

    const call = (method: Method, path: string, options: CallOptions = {}): Effect.Effect<Answer, MarketingError> => {
      const url = `${settings.baseUrl}/api${path}`
      const label = `${method} ${url}`
      const idempotent = options.idempotent ?? true
      let request = HttpClientRequest.make(method)(url).pipe(HttpClientRequest.acceptJson)
      if (options.query) request = HttpClientRequest.setUrlParams(request, options.query)
      if (options.json !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, options.json)

      const attempt = Effect.gen(function*() {
        yield* Ref.update(requests, (n) => n + 1)
        const answer = yield* sendOnce(http, request, policy.timeoutMs).pipe(
          Effect.catchIf((e): e is NoAnswer => e instanceof NoAnswer, (e) => {
            const failure = (attempts: number) => new MarketingUnreachable({ method, url, reason: e.reason, attempts })
            return Effect.fail(idempotent ? new Retry(e.reason, 0, failure) : failure(1))
          })
        )
        if (answer.status === 401) return yield* Effect.fail(new Unauthorized(answer))
        if (answer.status >= 200 && answer.status < 300) return answer
        const said = serviceMessage(answer)
        const failure = (attempts: number, transient: boolean) =>
          new MarketingRequestFailed({ method, url, status: answer.status, serviceMessage: said, attempts, transient })
        // A 429 was refused before any work was done, so even a creation may be repeated.
        if (isTransientStatus(answer.status) && (idempotent || answer.status === 429)) {
          return yield* Effect.fail(new Retry(`${answer.status}`, serverWaitMs(answer, Date.now(), policy), (n) => failure(n, true)))
        }
        return yield* failure(1, isTransientStatus(answer.status))
      })

      const isUnauthorized = (e: unknown): e is Unauthorized => e instanceof Unauthorized
      return withRetries(policy, label, attempt).pipe(
        Effect.catchIf(isUnauthorized, (first) =>
          Effect.gen(function*() {
            // Expired early, revoked, or expired by the service's clock: drop it, fetch another, retry once.
            const used = bearerOf(first.answer.request)
            if (used) yield* tokens.invalidate(used)
            yield* Effect.logInfo(`marketing: access token rejected (${serviceMessage(first.answer) ?? "401"}); retrying ${label} once with a new one`)
            return yield* withRetries(policy, label, attempt)
          })),
        Effect.catchIf(isUnauthorized, (second) =>
          Effect.fail(new MarketingAuthFailed({ url, status: 401, serviceMessage: serviceMessage(second.answer), stage: "api" })))
      )
    }

    return MarketingApi.of({ baseUrl: settings.baseUrl, call, requestCount: Ref.get(requests) })
  })

export const MarketingApiLive = (settings: MarketingSettings, policy: RetryPolicy = marketingRetryPolicy(settings)) =>
  Layer.effect(MarketingApi, makeMarketingApi(settings, policy))
