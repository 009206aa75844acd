import type { HttpClient, HttpClientRequest } from "@effect/platform"
import * as HttpClientError from "@effect/platform/HttpClientError"
import { Data, Effect, Predicate } from "effect"
import { isDeadline } from "./clients.js"
import { mayBeTlsPort, SPEAKS_HTTPS, speaksTls } from "./tls.js"

/** One HTTP exchange, its body read once. */
export interface Answer {
  readonly status: number
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  /** The text parsed as JSON; undefined when empty or not JSON. */
  readonly body: unknown
  /** The request as sent (after any per-attempt change, such as a token). */
  readonly request: HttpClientRequest.HttpClientRequest
}

/** No HTTP answer at all: refused, reset, timed out. */
export class TransportFailed extends Data.TaggedError("TransportFailed")<{
  /** The system error code (ECONNRESET…) or a short description: never anything the request carried. */
  readonly reason: string
}> {}

/** An answer the caller cannot use: an error status, or a body without what was asked for. */
export class UnusableAnswer extends Data.TaggedError("UnusableAnswer")<{
  readonly answer: Answer
  /** How long the server asked to wait before trying again (0 when it did not say). */
  readonly serverWaitMs: number
}> {}

export const isTransportFailed = (u: unknown): u is TransportFailed => Predicate.isTagged(u, "TransportFailed")
export const isUnusableAnswer = (u: unknown): u is UnusableAnswer => Predicate.isTagged(u, "UnusableAnswer")

/**
 * The system error code when there is one, or the deadline passed: short, and free of the URL, headers or body of the
 * request.
 */
const transportReason = (e: HttpClientError.HttpClientError, timeoutMs: number): string => {
  const cause = e.cause as { code?: unknown; cause?: { code?: unknown } } | undefined
  if (isDeadline(cause) || isDeadline(cause?.cause)) return `no answer within ${timeoutMs} ms`
  const code = [cause?.code, cause?.cause?.code].find((c) => typeof c === "string")
  return code ?? (e._tag === "RequestError" ? `${e.reason} error` : `${e.reason} error reading the answer`)
}

/** How long the one handshake that tells an http:// URL on a TLS port may take. */
const PROBE_MS = 3_000

/**
 * A plain-http request closed the way a TLS server closes one (see tls.ts): when a TLS handshake on the same port
 * succeeds, the failure says so (SPEAKS_HTTPS), which no retry would change; otherwise it stays as it was.
 */
const httpToTlsPort = (request: HttpClientRequest.HttpClientRequest, e: TransportFailed): Effect.Effect<never, TransportFailed> => {
  const url = URL.canParse(request.url) ? new URL(request.url) : undefined
  if (url?.protocol !== "http:" || !mayBeTlsPort(e.reason)) return Effect.fail(e)
  const host = url.hostname.replace(/^\[|\]$/g, "")
  return Effect.flatMap(
    Effect.promise(() => speaksTls(host, Number(url.port || 80), PROBE_MS)),
    (tls) => Effect.fail(tls ? new TransportFailed({ reason: SPEAKS_HTTPS }) : e)
  )
}

const parseJson = (text: string): unknown => {
  if (text.trim() === "") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Sends once and reads the whole answer, `http` ending the exchange after `timeoutMs` (HttpClients.within). Transport
 * failures become TransportFailed; other failures of the client (a token that could not be had) pass through.
 */
export const send = <E, R>(
  http: HttpClient.HttpClient.With<E, R>,
  request: HttpClientRequest.HttpClientRequest,
  timeoutMs: number
): Effect.Effect<Answer, TransportFailed | Exclude<E, HttpClientError.HttpClientError>, R> =>
  Effect.gen(function*() {
    const response = yield* http.execute(request)
    const text = yield* response.text
    return { status: response.status, headers: response.headers, text, body: parseJson(text), request: response.request }
  }).pipe(
    Effect.mapError((e) => (HttpClientError.isHttpClientError(e) ? new TransportFailed({ reason: transportReason(e, timeoutMs) }) : e)),
    // The client's own failures are all HttpClientErrors, turned into TransportFailed above.
    Effect.catchIf(isTransportFailed, (e) => httpToTlsPort(request, e))
  ) as Effect.Effect<Answer, TransportFailed | Exclude<E, HttpClientError.HttpClientError>, R>
