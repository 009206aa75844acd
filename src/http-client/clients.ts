import type * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Undici from "@effect/platform-node/Undici"
import { Context, Effect, Layer } from "effect"

/**
 * Where the remote services' clients come from: `within(ms)` is an HTTP client each exchange of which (the answer's
 * whole body read included) is aborted `ms` after it is sent, failing as a transport error (send.ts says "no answer
 * within"). Provided once at the edge (`HttpClientsLive`); tests of a client's logic provide a fake (`fixedClients`).
 */
export class HttpClients extends Context.Tag("shopsync/HttpClients")<HttpClients, {
  readonly within: (timeoutMs: number) => HttpClient.HttpClient
}>() {}

/**
 * undici's dispatcher with a deadline joined to the platform's own signal (which aborts on interruption): undici
 * ties the answer's body to the request's signal, so the deadline covers reading it. Effect.timeout would race the
 * exchange against a sleep in two forked fibers: about 0.2 ms of CPU per request, a third of the exchange's own
 * (measured on `per_page=1` listings), paid by every incremental sync many times over.
 */
const withDeadline = (dispatcher: Undici.Dispatcher, timeoutMs: number): Undici.Dispatcher =>
  // makeUndici calls the dispatcher's `request` only.
  ({
    request: (options: Undici.Dispatcher.RequestOptions) =>
      dispatcher.request({ ...options, signal: deadline(options.signal, timeoutMs) })
  }) as unknown as Undici.Dispatcher

/**
 * The request's signal: aborted by a timer of its own after `timeoutMs` (a TimeoutError), or with the platform's. Not
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: Node's timeout signal is held only weakly there, and once the
 * garbage collector took it the deadline never came and the request waited for ever (nodejs/node#57736; seen as a
 * token request hanging in CI). The pending timer holds the controller; unref'd, it keeps no process alive.
 */
const deadline = (signal: Undici.Dispatcher.RequestOptions["signal"], timeoutMs: number): AbortSignal => {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError")), timeoutMs)
  timer.unref()
  if (signal instanceof AbortSignal) {
    const follow = () => {
      clearTimeout(timer)
      controller.abort(signal.reason)
    }
    if (signal.aborted) follow()
    else signal.addEventListener("abort", follow, { once: true })
  }
  return controller.signal
}

/** One undici agent (its connections kept alive between requests), closed with the layer's scope. */
export const HttpClientsLive: Layer.Layer<HttpClients> = Layer.scoped(
  HttpClients,
  Effect.map(NodeHttpClient.makeDispatcher, (dispatcher) =>
    HttpClients.of({ within: (timeoutMs) => NodeHttpClient.makeUndici(withDeadline(dispatcher, timeoutMs)) }))
)

/** The same client whatever the deadline: a test's fake that answers at once. */
export const fixedClients = (http: HttpClient.HttpClient) => HttpClients.of({ within: () => http })

/** A failure's cause is the deadline's abort (a DOMException named TimeoutError), whether sending or reading the body. */
export const isDeadline = (cause: unknown): boolean =>
  (cause as { name?: unknown } | undefined)?.name === "TimeoutError"
