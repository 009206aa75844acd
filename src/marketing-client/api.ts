import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Clock, Context, Data, Effect, Layer, Redacted, Ref } from "effect"
import type { MarketingSettings } from "../config/settings.js"
import { HttpClients } from "../http-client/clients.js"
import { tlsProblem } from "../http-client/tls.js"
import { type Answer, send, type TransportFailed, UnusableAnswer } from "../http-client/send.js"
import { requestSpans } from "../http-client/spans.js"
import { isTransientStatus } from "../http-client/retry-after.js"
import { USER_AGENT } from "../http-client/user-agent.js"
import { type MarketingError, MarketingAuthFailed, MarketingRequestFailed, MarketingUnreachable } from "./errors.js"
import { marketingRetryPolicy, marketingSchedule, type RetryPolicy, serverWaitMs, serviceMessage } from "./http.js"
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

/** The API refused the access token (401): it is dropped and the request tried once more with a new one. */
class TokenRejected extends Data.TaggedError("TokenRejected")<{ readonly answer: Answer }> {}

type AttemptFailure = TransportFailed | UnusableAnswer | TokenRejected | MarketingError

const bearerOf = (request: HttpClientRequest.HttpClientRequest): Redacted.Redacted<string> | undefined => {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers["authorization"] ?? "")
  return match ? Redacted.make(match[1]!) : undefined
}

const toRequest = (method: Method, url: string, options: CallOptions) => {
  let request = HttpClientRequest.make(method)(url).pipe(HttpClientRequest.acceptJson, HttpClientRequest.setHeader("user-agent", USER_AGENT))
  if (options.query) request = HttpClientRequest.setUrlParams(request, options.query)
  if (options.json !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, options.json)
  return request
}

/** A 2xx answer; a 401 is the token's fault; anything else may be worth another attempt. */
const judge = (answer: Answer, policy: RetryPolicy): Effect.Effect<Answer, TokenRejected | UnusableAnswer> =>
  Effect.gen(function*() {
    if (answer.status === 401) return yield* new TokenRejected({ answer })
    if (answer.status >= 200 && answer.status < 300) return answer
    return yield* new UnusableAnswer({ answer, serverWaitMs: serverWaitMs(answer, yield* Clock.currentTimeMillis, policy) })
  })

/** 429/5xx and dropped connections (not a TLS failure, which no retry changes); a 429 was refused before any work was done, so even a creation may be repeated. */
const transientFor = (idempotent: boolean) => (e: AttemptFailure) =>
  e._tag === "TransportFailed"
    ? idempotent && tlsProblem(e.reason) === undefined
    : e._tag === "UnusableAnswer" && isTransientStatus(e.answer.status) && (idempotent || e.answer.status === 429)

/** The error the caller gets once the retries are over (a rejected token is handled by the caller). */
const giveUp = (e: AttemptFailure, attempts: number, method: Method, url: string): TokenRejected | MarketingError => {
  switch (e._tag) {
    case "TransportFailed":
      return new MarketingUnreachable({ method, url, reason: e.reason, attempts })
    case "UnusableAnswer": {
      const { status } = e.answer
      return new MarketingRequestFailed({
        method, url, status, serviceMessage: serviceMessage(e.answer), attempts, transient: isTransientStatus(status)
      })
    }
    default:
      return e
  }
}

export const makeMarketingApi = (settings: MarketingSettings, policy: RetryPolicy) =>
  Effect.gen(function*() {
    const tokens = yield* TokenService
    const requests = yield* Ref.make(0)
    const http = (yield* HttpClients).within(policy.timeoutMs)

    // The token is attached per attempt, so a retry after a rejected token carries the new one.
    const attempt = (request: HttpClientRequest.HttpClientRequest) =>
      Ref.update(requests, (n) => n + 1).pipe(
        Effect.zipRight(Effect.flatMap(tokens.get, (token) => send(http, HttpClientRequest.bearerToken(request, token)))),
        Effect.flatMap((answer) => judge(answer, policy))
      )

    /** Expired early, revoked, or expired by the service's clock: drop it, fetch another, retry once. */
    const renewToken = (rejected: TokenRejected, label: string) =>
      Effect.gen(function*() {
        const used = bearerOf(rejected.answer.request)
        if (used) yield* tokens.invalidate(used)
        yield* Effect.logInfo(`marketing: access token rejected (${serviceMessage(rejected.answer) ?? "401"}); retrying ${label} once with a new one`)
      })

    const call = (method: Method, path: string, options: CallOptions = {}): Effect.Effect<Answer, MarketingError> => {
      const url = `${settings.baseUrl}/api${path}`
      const label = `${method} ${url}`
      const schedule = marketingSchedule(policy, label, transientFor(options.idempotent ?? true))
      const withRetries = requestSpans("marketing", method, url)(attempt(toRequest(method, url, options)), (tried) =>
        Effect.retryOrElse(tried, schedule, (e, attempts) => Effect.fail(giveUp(e, attempts, method, url))))
      return withRetries.pipe(
        Effect.catchTag("TokenRejected", (first) => Effect.zipRight(renewToken(first, label), withRetries)),
        Effect.catchTag("TokenRejected", (second) =>
          Effect.fail(new MarketingAuthFailed({ url, status: 401, serviceMessage: serviceMessage(second.answer), stage: "api" })))
      )
    }

    return MarketingApi.of({ baseUrl: settings.baseUrl, call, requestCount: Ref.get(requests) })
  })

export const MarketingApiLive = (settings: MarketingSettings, policy: RetryPolicy = marketingRetryPolicy(settings)) =>
  Layer.effect(MarketingApi, makeMarketingApi(settings, policy))
