import type * as HttpBody from "@effect/platform/HttpBody"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Headers from "@effect/platform/Headers"
import * as UrlParams from "@effect/platform/UrlParams"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Undici from "@effect/platform-node/Undici"
import { Context, Effect, Either, Layer } from "effect"
import { type Exchange, type Exchanged, transportReason, TransportFailed, viaClient } from "./send.js"

/**
 * Where the remote services' exchanges come from: `within(ms)` sends a request and reads its answer whole, aborting
 * it `ms` after it was sent (send.ts says "no answer within"). Provided once at the edge (`HttpClientsLive`); tests of
 * a client's logic provide a fake (`fixedClients`).
 */
export class HttpClients extends Context.Tag("shopsync/HttpClients")<HttpClients, {
  readonly within: (timeoutMs: number) => Exchange
}>() {}

/**
 * The request's signal: aborted by a timer of its own after `timeoutMs` (a TimeoutError), or with `signal` (the
 * fiber's interruption). Not `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: Node's timeout signal is held only
 * weakly there, and once the garbage collector took it the deadline never came and the request waited for ever
 * (nodejs/node#57736; seen as a token request hanging in CI). The pending timer holds the controller; unref'd, it
 * keeps no process alive. `done` clears it once the exchange is over: left to fire, each answered request's timer
 * and controller stayed for the whole deadline (60 s by default), some 8,000 of them at a listing's pace (`verify`'s
 * heap after a full collection grew from 27 to 49 MB over a 1,000,000-order store; 28-30 MB without them).
 */
const deadline = (signal: AbortSignal, timeoutMs: number) => {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError")), timeoutMs)
  timer.unref()
  const interrupted = () => {
    clearTimeout(timer)
    controller.abort(signal.reason)
  }
  signal.addEventListener("abort", interrupted, { once: true })
  const done = () => {
    clearTimeout(timer)
    signal.removeEventListener("abort", interrupted)
  }
  return { signal: controller.signal, done }
}

/** The bodies our clients send: none, or bytes (JSON, a form). */
const bodyOf = (body: HttpBody.HttpBody): Uint8Array | null => {
  switch (body._tag) {
    case "Empty":
      return null
    case "Uint8Array":
      return body.body
    default:
      throw new Error(`shopsync's HTTP exchange sends no ${body._tag} body`)
  }
}

/**
 * One exchange straight on undici's dispatcher, the body read within the deadline: undici ties the answer's body to
 * the request's signal. @effect/platform's client did the same with about a hundred Effect operations more a request
 * (its response wrapper, a cached body effect, a finalization registry entry): a fifth of a store request's CPU,
 * paid by every page of a backfill and every listing of an incremental sync. Interruption aborts the exchange
 * (Effect.async's signal).
 */
const exchangeOn = (dispatcher: Undici.Dispatcher, timeoutMs: number): Exchange => (request) =>
  Effect.async<Exchanged, TransportFailed>((resume, interrupted) => {
    const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
    if (Either.isLeft(url)) return resume(Effect.fail(new TransportFailed({ reason: "InvalidUrl error" })))
    let otherwise = "Transport error"
    const { signal, done } = deadline(interrupted, timeoutMs)
    const settle = (outcome: Effect.Effect<Exchanged, TransportFailed>) => {
      done()
      resume(outcome)
    }
    dispatcher.request({
      method: request.method,
      headers: request.headers,
      origin: url.right.origin,
      path: url.right.pathname + url.right.search + url.right.hash,
      body: bodyOf(request.body),
      signal,
      // The deadline covers the whole exchange: undici's own timeouts stay out of its way.
      headersTimeout: 60 * 60 * 1000,
      bodyTimeout: 0
    }).then((response) => {
      otherwise = "Decode error reading the answer"
      return response.body.text().then((text) => settle(Effect.succeed({ status: response.statusCode, headers: Headers.fromInput(response.headers), text })))
    }).catch((cause: unknown) => settle(Effect.fail(new TransportFailed({ reason: transportReason(cause, timeoutMs, otherwise) }))))
  })

/** One undici agent (its connections kept alive between requests), closed with the layer's scope. */
export const HttpClientsLive: Layer.Layer<HttpClients> = Layer.scoped(
  HttpClients,
  Effect.map(NodeHttpClient.makeDispatcher, (dispatcher) => HttpClients.of({ within: (timeoutMs) => exchangeOn(dispatcher, timeoutMs) }))
)

/** Exchanges through `http`, whatever the deadline: a test's fake that answers at once. */
export const fixedClients = (http: HttpClient.HttpClient) => HttpClients.of({ within: (timeoutMs) => viaClient(http, timeoutMs) })
