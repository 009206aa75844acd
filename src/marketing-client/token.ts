import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Clock, Context, Effect, Either, Layer, Option, Redacted, Ref, SynchronizedRef } from "effect"
import type { MarketingSettings } from "../config/settings.js"
import { HttpClients } from "../http-client/clients.js"
import { isTransientStatus } from "../http-client/retry-after.js"
import { tlsProblem } from "../http-client/tls.js"
import { type Answer, send, type TransportFailed, UnusableAnswer } from "../http-client/send.js"
import { requestSpans } from "../http-client/spans.js"
import { USER_AGENT } from "../http-client/user-agent.js"
import { type MarketingError, MarketingAuthFailed, MarketingRequestFailed, MarketingResponseInvalid, MarketingUnreachable } from "./errors.js"
import { marketingRetryPolicy, marketingSchedule, type RetryPolicy, serverWaitMs, serviceMessage } from "./http.js"
import { decode, TokenAnswer } from "./schemas.js"

/**
 * The client-credentials access token, shared by every request of the process. It is fetched on first
 * use, replaced `tokenMarginSeconds` before its expires_in runs out, and dropped when the API rejects
 * it. Concurrent callers wait for one fetch; a failed fetch leaves nothing cached.
 */
export class TokenService extends Context.Tag("shopsync/MarketingTokens")<TokenService, {
  readonly get: Effect.Effect<Redacted.Redacted<string>, MarketingError>
  /** Forgets `rejected` if it is still the cached token (another caller may already have replaced it). */
  readonly invalidate: (rejected: Redacted.Redacted<string>) => Effect.Effect<void>
  /** Requests sent to the token endpoint (retries included). */
  readonly requestCount: Effect.Effect<number>
}>() {}

interface Cached {
  readonly token: Redacted.Redacted<string>
  /** Epoch ms after which the token is replaced before use. */
  readonly renewAt: number
}

/** When to renew: the margin before expiry, or half-way through a lifetime shorter than twice the margin. */
export const renewAfterMs = (expiresInSeconds: number, marginSeconds: number): number => {
  const lifetime = Math.max(0, expiresInSeconds) * 1000
  const margin = marginSeconds * 1000
  return lifetime > 2 * margin ? lifetime - margin : lifetime / 2
}

type AttemptFailure = TransportFailed | UnusableAnswer | MarketingError

/** The token, or why there is none; a 429/5xx may be worth another attempt. */
const judge = (answer: Answer, url: string, policy: RetryPolicy): Effect.Effect<typeof TokenAnswer.Type, AttemptFailure> =>
  Effect.gen(function*() {
    const said = serviceMessage(answer)
    if (isTransientStatus(answer.status)) {
      return yield* new UnusableAnswer({ answer, serverWaitMs: serverWaitMs(answer, yield* Clock.currentTimeMillis, policy) })
    }
    // The token endpoint answers 400 (invalid_client) or 401 to wrong credentials.
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      return yield* new MarketingAuthFailed({ url, status: answer.status, serviceMessage: said, stage: "token" })
    }
    if (answer.status !== 200) {
      return yield* new MarketingRequestFailed({ method: "POST", url, status: answer.status, serviceMessage: said, attempts: 1, transient: false })
    }
    const decoded = decode(TokenAnswer, answer.body)
    if (Either.isLeft(decoded)) return yield* new MarketingResponseInvalid({ url, detail: `token answer: ${decoded.left}` })
    return decoded.right
  })

const isRetried = (e: AttemptFailure) => (e._tag === "TransportFailed" && tlsProblem(e.reason) === undefined) || e._tag === "UnusableAnswer"

/** The error the caller gets once the retries are over. */
const giveUp = (e: AttemptFailure, attempts: number, url: string): MarketingError => {
  switch (e._tag) {
    case "TransportFailed":
      return new MarketingUnreachable({ method: "POST", url, reason: e.reason, attempts })
    case "UnusableAnswer":
      return new MarketingRequestFailed({
        method: "POST", url, status: e.answer.status, serviceMessage: serviceMessage(e.answer), attempts, transient: true
      })
    default:
      return e
  }
}

export const makeTokenService = (settings: MarketingSettings, policy: RetryPolicy) =>
  Effect.gen(function*() {
    const http = (yield* HttpClients).within(policy.timeoutMs)
    const cache = yield* SynchronizedRef.make(Option.none<Cached>())
    const requests = yield* Ref.make(0)
    const url = `${settings.baseUrl}/oauth/v2/token`
    const label = `POST ${url}`

    // Secrets go in the form body, never the URL (URLs end up in logs).
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.bodyUrlParams({
        grant_type: "client_credentials",
        client_id: Redacted.value(settings.clientId),
        client_secret: Redacted.value(settings.clientSecret)
      }),
      HttpClientRequest.acceptJson,
      HttpClientRequest.setHeader("user-agent", USER_AGENT)
    )

    const attempt = Ref.update(requests, (n) => n + 1).pipe(
      Effect.zipRight(send(http, request)),
      Effect.flatMap((answer) => judge(answer, url, policy))
    )

    const fetchToken = requestSpans("marketing", "POST", url)(attempt, (tried) =>
      Effect.retryOrElse(tried, marketingSchedule(policy, label, isRetried), (e, attempts) => Effect.fail(giveUp(e, attempts, url))))

    const get = SynchronizedRef.modifyEffect(cache, (current) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        if (Option.isSome(current) && now < current.value.renewAt) return [current.value.token, current] as const
        // A failure here leaves the cache as it was: the next caller tries again.
        const answer = yield* fetchToken
        const token = Redacted.make(answer.access_token)
        yield* Effect.logDebug(`marketing: new access token, expires in ${answer.expires_in} s`)
        return [token, Option.some({ token, renewAt: now + renewAfterMs(answer.expires_in, settings.tokenMarginSeconds) })] as const
      })
    )

    const invalidate = (rejected: Redacted.Redacted<string>) =>
      SynchronizedRef.update(cache, (current) =>
        Option.isSome(current) && Redacted.value(current.value.token) === Redacted.value(rejected) ? Option.none() : current
      )

    return TokenService.of({ get, invalidate, requestCount: Ref.get(requests) })
  })

export const TokenServiceLive = (settings: MarketingSettings, policy: RetryPolicy = marketingRetryPolicy(settings)) =>
  Layer.effect(TokenService, makeTokenService(settings, policy))
