import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Redacted, Ref, TestClock } from "effect"
import type { MarketingSettings } from "../../src/config/settings.js"
import { fixedClients, HttpClients } from "../../src/http-client/clients.js"
import type { RetryPolicy } from "../../src/marketing-client/http.js"
import { makeTokenService, renewAfterMs } from "../../src/marketing-client/token.js"

const settings: MarketingSettings = {
  baseUrl: "https://marketing.test",
  clientId: Redacted.make("mk_id"),
  clientSecret: Redacted.make("mk_secret"),
  batchSize: 200,
  concurrency: 2,
  maxAttempts: 3,
  requestTimeoutMs: 10_000,
  tokenMarginSeconds: 60
}
const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 10_000, maxServerWaitMs: 120_000 }

interface Reply {
  readonly status: number
  readonly body: unknown
}

/** Token n (1-based) of a service whose tokens live `expiresIn` seconds. */
const issued = (expiresIn = 3600) => (n: number): Reply => ({
  status: 200,
  body: { access_token: `token-${n}`, expires_in: expiresIn, token_type: "bearer" }
})

/**
 * A token service over a fake token endpoint: `reply(n)` answers its n-th request after `delayMs` on the
 * TestClock. `calls` counts the requests the endpoint saw.
 */
const tokenService = (reply: (n: number) => Reply, delayMs = 0) =>
  Effect.gen(function*() {
    const calls = yield* Ref.make(0)
    const endpoint = HttpClient.make((request) =>
      Effect.gen(function*() {
        const n = yield* Ref.updateAndGet(calls, (c) => c + 1)
        if (delayMs > 0) yield* Effect.sleep(delayMs)
        const { status, body } = reply(n)
        return HttpClientResponse.fromWeb(request, new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } }))
      }))
    const tokens = yield* Effect.provideService(makeTokenService(settings, policy), HttpClients, fixedClients(endpoint))
    const get = Effect.map(tokens.get, Redacted.value)
    return { tokens, get, calls: Ref.get(calls) }
  })

describe("marketing access token", () => {
  it.effect("concurrent callers wait for one fetch and share its token", () =>
    Effect.gen(function*() {
      const { get, calls } = yield* tokenService(issued(), 200)
      const fiber = yield* Effect.fork(Effect.all(Array.from({ length: 8 }, () => get), { concurrency: "unbounded" }))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(fiber)).toEqual(Array.from({ length: 8 }, () => "token-1"))
      expect(yield* calls).toBe(1)
    }))

  it.effect("keeps the token until a margin before expires_in, then fetches a new one", () =>
    Effect.gen(function*() {
      const { get, calls } = yield* tokenService(issued(3600))
      expect(yield* get).toBe("token-1")
      yield* TestClock.adjust("3539 seconds")
      expect(yield* get).toBe("token-1")
      yield* TestClock.adjust("1 second") // 3600 - 60 s margin
      expect(yield* get).toBe("token-2")
      expect(yield* calls).toBe(2)
    }))

  it.effect("renews half-way through a lifetime shorter than twice the margin", () =>
    Effect.gen(function*() {
      expect(renewAfterMs(3600, 60)).toBe(3_540_000)
      expect(renewAfterMs(30, 60)).toBe(15_000)
      const { get } = yield* tokenService(issued(30))
      expect(yield* get).toBe("token-1")
      yield* TestClock.adjust("14 seconds")
      expect(yield* get).toBe("token-1")
      yield* TestClock.adjust("1 second")
      expect(yield* get).toBe("token-2")
    }))

  it.effect("a failed fetch is not cached: the next caller fetches again", () =>
    Effect.gen(function*() {
      const { get, calls } = yield* tokenService((n) => (n === 1 ? { status: 400, body: { error: "invalid_client" } } : issued()(n)))
      expect(yield* Effect.flip(get)).toMatchObject({ _tag: "MarketingAuthFailed", stage: "token", status: 400 })
      expect(yield* get).toBe("token-2")
      expect(yield* calls).toBe(2)
    }))

  it.effect("a token endpoint failing for a moment is retried after a backoff on the clock", () =>
    Effect.gen(function*() {
      const { get, calls } = yield* tokenService((n) => (n === 1 ? { status: 502, body: {} } : issued()(n)))
      const fiber = yield* Effect.fork(get)
      yield* TestClock.adjust("200 millis")
      expect(yield* calls).toBe(1)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(fiber)).toBe("token-2")
    }))

  it.effect("invalidate drops the cached token only if it is the one rejected", () =>
    Effect.gen(function*() {
      const { tokens, get, calls } = yield* tokenService(issued())
      expect(yield* get).toBe("token-1")
      yield* tokens.invalidate(Redacted.make("token-0"))
      expect(yield* get).toBe("token-1")
      yield* tokens.invalidate(Redacted.make("token-1"))
      expect(yield* get).toBe("token-2")
      // A caller still holding the old token cannot drop the new one.
      yield* tokens.invalidate(Redacted.make("token-1"))
      expect(yield* get).toBe("token-2")
      expect(yield* calls).toBe(2)
    }))
})
