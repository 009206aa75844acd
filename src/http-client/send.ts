import type { HttpClient, HttpClientRequest } from "@effect/platform"
import * as HttpClientError from "@effect/platform/HttpClientError"
import { Data, Effect, Predicate } from "effect"
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

/** What an exchange gives `send`: the answer's status, headers (lower-cased names) and whole body. */
export interface Exchanged {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
}

/** One HTTP exchange, the answer's body read whole; no answer at all (refused, reset, timed out) is a TransportFailed. */
export type Exchange<E = never, R = never> = (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<Exchanged, TransportFailed | E, R>

/** A failure's cause is a deadline's abort (a DOMException named TimeoutError), whether sending or reading the body. */
export const isDeadline = (cause: unknown): boolean =>
  (cause as { name?: unknown } | undefined)?.name === "TimeoutError"

/**
 * The system error code when there is one, or the deadline passed, else `otherwise`: short, and free of the URL,
 * headers or body of the request.
 */
export const transportReason = (cause: unknown, timeoutMs: number, otherwise: string): string => {
  const c = cause as { code?: unknown; cause?: { code?: unknown } } | undefined
  if (isDeadline(c) || isDeadline(c?.cause)) return `no answer within ${timeoutMs} ms`
  const code = [c?.code, c?.cause?.code].find((x): x is string => typeof x === "string")
  return code ?? otherwise
}

/**
 * An @effect/platform client as an exchange (a test's fake answering in process; the alerts' client), its own
 * failures (HttpClientErrors) turned into TransportFailed, any other failure (a token that could not be had) kept.
 */
export const viaClient = <E, R>(http: HttpClient.HttpClient.With<E, R>, timeoutMs: number): Exchange<Exclude<E, HttpClientError.HttpClientError>, R> =>
  (request) =>
    Effect.gen(function*() {
      const response = yield* http.execute(request)
      return { status: response.status, headers: response.headers, text: yield* response.text }
    }).pipe(Effect.mapError((e) =>
      HttpClientError.isHttpClientError(e)
        ? new TransportFailed({ reason: transportReason(e.cause, timeoutMs, e._tag === "RequestError" ? `${e.reason} error` : `${e.reason} error reading the answer`) })
        : e)) as Effect.Effect<Exchanged, TransportFailed | Exclude<E, HttpClientError.HttpClientError>, R>

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
 * Sends `request` once through `exchange` and parses the answer. A plain-http request closed the way a TLS server
 * closes one says so (httpToTlsPort); other failures pass through.
 */
export const send = <E, R>(exchange: Exchange<E, R>, request: HttpClientRequest.HttpClientRequest): Effect.Effect<Answer, TransportFailed | E, R> =>
  exchange(request).pipe(
    Effect.map(({ status, headers, text }): Answer => ({ status, headers, text, body: parseJson(text), request })),
    Effect.catchIf(isTransportFailed, (e) => httpToTlsPort(request, e))
  ) as Effect.Effect<Answer, TransportFailed | E, R>
