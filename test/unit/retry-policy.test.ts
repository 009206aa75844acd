import { describe, expect, it } from "@effect/vitest"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Clock, Data, Effect, Fiber, Logger, Random, TestClock } from "effect"
import { retryAfterMs } from "../../src/http-client/retry-after.js"
import { type RetryPolicy, type RetryRules, retrySchedule } from "../../src/http-client/retry.js"
import { TransportFailed, UnusableAnswer } from "../../src/http-client/send.js"
import { safeUrl } from "../../src/store-client/url.js"

const policy: RetryPolicy = { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 1000 }

type Failure = UnusableAnswer | TransportFailed | NotFound

class NotFound extends Data.TaggedError("NotFound") {}

/** A 503 asking to wait `serverWaitMs` (0: it did not ask). */
const unavailable = (serverWaitMs = 0) =>
  new UnusableAnswer({
    answer: { status: 503, headers: {}, text: "", body: undefined, request: HttpClientRequest.get("https://shop.test/orders") },
    serverWaitMs
  })

const rules: RetryRules<Failure> = {
  service: "test",
  label: "GET https://shop.test/orders",
  transient: (e) => e._tag !== "NotFound",
  maxServerWaitMs: 60_000
}

/**
 * Runs an attempt that always fails with `failure` under the schedule, moving the TestClock from outside.
 * Returns the waits between attempts, the attempts the schedule counted, and the warnings it logged.
 */
const run = (failure: Failure, options: { policy?: RetryPolicy; random?: Random.Random } = {}) =>
  Effect.gen(function*() {
    const started: number[] = []
    const logs: string[] = []
    const attempt = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      started.push(now)
      return Effect.fail(failure)
    })
    const fiber = yield* Effect.retryOrElse(attempt, retrySchedule(options.policy ?? policy, rules), (_, attempts) => Effect.succeed(attempts)).pipe(
      Effect.withRandom(options.random ?? Random.make("seed")),
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void logs.push(String(message))))),
      Effect.fork
    )
    yield* TestClock.adjust("10 minutes")
    const attempts = yield* Fiber.join(fiber)
    return { waits: started.slice(1).map((t, i) => t - started[i]!), attempts, logs }
  })

const transient = unavailable()

describe("retry schedule", () => {
  it.effect("grows exponentially from 500 ms, capped at 30 s, with jitter between half and the full step", () =>
    Effect.gen(function*() {
      const steps = [500, 1000, 2000, 4000, 8000, 16_000, 30_000]
      expect((yield* run(transient, { random: Random.fixed([0]) })).waits).toEqual(steps.map((s) => s / 2))
      expect((yield* run(transient, { random: Random.fixed([1]) })).waits).toEqual(steps)
      const jittered = (yield* run(transient)).waits
      expect(jittered).toHaveLength(steps.length)
      jittered.forEach((w, i) => {
        expect(w).toBeGreaterThanOrEqual(steps[i]! / 2)
        expect(w).toBeLessThanOrEqual(steps[i]!)
      })
      expect(jittered).not.toEqual(steps.map((s) => s / 2))
      expect(jittered).not.toEqual(steps)
    }))

  it.effect("never waits less than the server's Retry-After carried by the failure", () =>
    Effect.gen(function*() {
      const { waits } = yield* run(unavailable(7000), { random: Random.fixed([0.3]) })
      // 7000 ms until the backoff step itself is longer (16000 × 0.65 = 10400).
      expect(waits).toEqual([7000, 7000, 7000, 7000, 7000, 10_400, 19_500])
    }))

  it.effect("ends at once when the server asks for a wait longer than it may wait", () =>
    Effect.gen(function*() {
      const result = yield* run(unavailable(60_001))
      expect(result).toMatchObject({ waits: [], attempts: 1, logs: [] })
    }))

  it.effect("does not retry failures that are not transient", () =>
    Effect.gen(function*() {
      const result = yield* run(new NotFound())
      expect(result).toMatchObject({ waits: [], attempts: 1, logs: [] })
    }))

  it.effect("makes at most maxAttempts attempts, and says how many it made", () =>
    Effect.gen(function*() {
      expect((yield* run(transient, { policy: { ...policy, maxAttempts: 3 } })).attempts).toBe(3)
      expect((yield* run(transient, { policy: { ...policy, maxAttempts: 1 } })).attempts).toBe(1)
      expect((yield* run(transient)).attempts).toBe(8)
    }))

  it.effect("logs each retry with its reason, wait and attempt number", () =>
    Effect.gen(function*() {
      const { logs } = yield* run(transient, { policy: { ...policy, maxAttempts: 3 }, random: Random.fixed([0]) })
      expect(logs).toEqual([
        "test: 503 on GET https://shop.test/orders; retrying in 250 ms (attempt 2 of 3)",
        "test: 503 on GET https://shop.test/orders; retrying in 500 ms (attempt 3 of 3)"
      ])
      const dropped = yield* run(new TransportFailed({ reason: "ECONNRESET" }), { policy: { ...policy, maxAttempts: 2 }, random: Random.fixed([1]) })
      expect(dropped.logs).toEqual(["test: ECONNRESET on GET https://shop.test/orders; retrying in 500 ms (attempt 2 of 2)"])
    }))
})

describe("Retry-After", () => {
  it("reads delta seconds, an HTTP date, or RateLimit-Retry-After", () => {
    expect(retryAfterMs({ "retry-after": "3" }, 0)).toBe(3000)
    expect(retryAfterMs({ "retry-after": new Date(10_000).toUTCString() }, 4000)).toBe(6000)
    expect(retryAfterMs({ "ratelimit-retry-after": "2" }, 0)).toBe(2000)
    expect(retryAfterMs({}, 0)).toBe(0)
  })
})

describe("URLs in errors", () => {
  it("strips credentials", () => {
    const shown = safeUrl("https://u:p@shop.test/wp-json/wc/v3/orders?consumer_key=ck_1&consumer_secret=cs_2&page=2")
    expect(shown).not.toContain("cs_2")
    expect(shown).not.toContain("ck_1")
    expect(shown).not.toContain("u:p@")
    expect(shown).toContain("page=2")
  })
})
