// The real store client over real HTTP (undici), with its log lines captured, for tests that talk to a simulator
// or a hand-made server without a warehouse.
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, Layer, Logger, ManagedRuntime, Redacted } from "effect"
import type { StoreSettings } from "../../src/config/settings.js"
import { HttpClients, HttpClientsLive } from "../../src/http-client/clients.js"
import type { RetryPolicy } from "../../src/http-client/retry.js"
import { StoreClient, StoreClientLive } from "../../src/store-client/client.js"

export const FAST: RetryPolicy = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5_000 }

export const storeSettings = (apiUrl: string, overrides: Partial<StoreSettings> = {}): StoreSettings => ({
  apiUrl,
  consumerKey: Redacted.make("ck_demo"),
  consumerSecret: Redacted.make("cs_demo"),
  storeId: "test",
  perPage: 100,
  settleSeconds: 0,
  maxAttempts: FAST.maxAttempts,
  requestTimeoutMs: FAST.timeoutMs,
  concurrency: 4,
  ...overrides
})

/**
 * What a TLS-terminating proxy does, in process: requests to `publicRoot` (an https:// address) go to `simUrl`
 * over plain HTTP with X-Forwarded-Proto: https, so the simulator treats them as HTTPS.
 */
export const behindHttps = (publicRoot: string, simUrl: string) =>
  Layer.effect(
    HttpClients,
    Effect.map(HttpClients, (clients) => HttpClients.of({
      within: (timeoutMs) => (request) =>
        clients.within(timeoutMs)(request.pipe(
          HttpClientRequest.updateUrl((url) => url.replace(publicRoot, simUrl)),
          HttpClientRequest.setHeader("x-forwarded-proto", "https")
        ))
    }))
  ).pipe(Layer.provide(HttpClientsLive))

/** A store client on `settings`; `run` runs an effect with it, `logs` holds every line it logged. */
export const makeStoreClient = (
  settings: StoreSettings,
  options: { policy?: RetryPolicy; http?: Layer.Layer<HttpClients> } = {}
) => {
  const logs: string[] = []
  const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void logs.push(Array.isArray(message) ? message.join(" ") : String(message))))
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(StoreClientLive(settings, options.policy ?? FAST).pipe(Layer.provide(options.http ?? HttpClientsLive)), capture)
  )
  return {
    logs,
    run: <A, E>(effect: Effect.Effect<A, E, StoreClient>) => runtime.runPromise(effect),
    /** The failure of `effect` (it must fail). */
    fail: <A, E>(effect: Effect.Effect<A, E, StoreClient>) => runtime.runPromise(Effect.flip(effect)),
    requests: () => runtime.runPromise(Effect.flatMap(StoreClient, (c) => c.requestCount)),
    dispose: () => runtime.dispose()
  }
}
