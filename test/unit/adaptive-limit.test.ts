import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Logger, LogLevel, TestClock } from "effect"
import { AdaptiveLimit, AdaptiveLimitLive, type AdaptiveLimitOptions, type Answered } from "../../src/http-client/adaptive-limit.js"
import { quotaOf } from "../../src/http-client/rate-headers.js"

/** What the fake server answers to its n-th request (1-based), given the requests in flight as it arrived and its kind. */
type Serve = (n: number, inFlight: number, kind: string) => { readonly latencyMs: number; readonly answer: Answered }

const ok: Answered = { status: 200, headers: {} }

interface Start {
  readonly at: number
  readonly inFlight: number
}

/**
 * Requests sent `concurrency` at a time, of one kind (default "") or the kind of the phase's i-th; the phases of a lane
 * (default 0) run one after another, lanes side by side.
 */
interface Demand {
  readonly count: number
  readonly concurrency: number
  readonly kind?: string | ((i: number) => string)
  readonly lane?: number
}

/**
 * Sends `count` requests through a limit, 32 at a time (more than it lets through: they queue in it), or the phases of
 * `demand`, to a server on the TestClock; moves the clock `stepMs` at a time for `forMs`. Returns when each request
 * started and how many were in flight then.
 */
const drive = (options: Partial<AdaptiveLimitOptions>, serve: Serve, demand: number | ReadonlyArray<Demand>, forMs: number, stepMs = 5) =>
  Effect.gen(function*() {
    const origin = yield* Clock.currentTimeMillis
    const limit = yield* Effect.provide(AdaptiveLimit, AdaptiveLimitLive({ service: "test", maxConcurrency: 16, startConcurrency: 2, maxRps: undefined, adaptive: true, ...options }))
    const starts: Start[] = []
    let inFlight = 0
    const exchange = (kind: string) => Effect.gen(function*() {
      inFlight++
      const at = (yield* Clock.currentTimeMillis) - origin
      starts.push({ at, inFlight })
      const { latencyMs, answer } = serve(starts.length, inFlight, kind)
      yield* Effect.sleep(latencyMs)
      inFlight--
      return answer
    })
    const phases = typeof demand === "number" ? [{ count: demand, concurrency: 32 }] : demand
    const lanes = [...new Set(phases.map((p) => p.lane ?? 0))].map((lane) => phases.filter((p) => (p.lane ?? 0) === lane))
    const fiber = yield* Effect.fork(Effect.forEach(lanes, (lane) => Effect.forEach(lane, ({ concurrency, count, kind = "" }) =>
      Effect.forEach(Array.from({ length: count }), (_, i) => {
        const k = typeof kind === "string" ? kind : kind(i)
        return limit.run(exchange(k), k)
      }, { concurrency, discard: true }), { discard: true }), { concurrency: "unbounded", discard: true }))
    for (let t = 0; t < forMs; t += stepMs) yield* TestClock.adjust(stepMs)
    yield* Fiber.interrupt(fiber)
    return { starts, summary: yield* limit.summary }
  })

/** Every message logged, debug included. */
const capture = (logs: string[]) =>
  Layer.merge(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void logs.push(String(message)))), Logger.minimumLogLevel(LogLevel.Debug))

const peak = (starts: ReadonlyArray<Start>, from = 0, to = Number.POSITIVE_INFINITY) =>
  Math.max(0, ...starts.filter((s) => s.at >= from && s.at < to).map((s) => s.inFlight))

describe("adaptive limit", () => {
  it.effect("starts low and doubles while answers are healthy, up to the concurrency ceiling", () =>
    Effect.gen(function*() {
      const { starts } = yield* drive({ maxConcurrency: 12 }, () => ({ latencyMs: 100, answer: ok }), 200, 700, 25)
      expect(peak(starts, 0, 100)).toBe(2)
      expect(peak(starts, 100, 200)).toBe(4)
      expect(peak(starts, 200, 300)).toBe(8)
      expect(peak(starts)).toBe(12)
    }))

  it.effect("halves the requests in flight on a 429, then climbs back by one per window", () =>
    Effect.gen(function*() {
      const logs: string[] = []
      const { starts, summary } = yield* drive({}, (n) => ({ latencyMs: 100, answer: n === 60 ? { status: 429, headers: {} } : ok }), 300, 1000, 10)
        .pipe(Effect.provide(capture(logs)))
      expect(logs).toEqual(["test: the server says it is overloaded; 8 requests in flight from now (were 16)"])
      const refused = starts[59]!.at + 100
      expect(peak(starts, refused - 100, refused)).toBe(16)
      // Those in flight finish; then 8, one more per window of answers (not doubling: 16 again after one).
      expect(peak(starts, refused + 100, refused + 190)).toBeGreaterThanOrEqual(8)
      expect(peak(starts, refused + 100, refused + 190)).toBeLessThanOrEqual(9)
      expect(peak(starts, refused + 400, refused + 490)).toBeLessThanOrEqual(13)
      expect(summary).toMatchObject({ throttled: 1, backoffs: 1, pauses: 0 })
    }))

  it.effect("backs off when answers slow down, settling near the knee of the latency", () =>
    Effect.gen(function*() {
      const knee = (_: number, inFlight: number) => ({ latencyMs: 100 + 50 * Math.max(0, inFlight - 4), answer: ok })
      const { starts, summary } = yield* drive({}, knee, 500, 10_000, 25)
      const late = starts.filter((s) => s.at > 4_000).map((s) => s.inFlight)
      expect(late.reduce((a, b) => a + b, 0) / late.length).toBeGreaterThanOrEqual(3.5)
      expect(late.reduce((a, b) => a + b, 0) / late.length).toBeLessThanOrEqual(5)
      expect(summary.concurrency).toBeGreaterThanOrEqual(3.5)
      expect(summary.concurrency).toBeLessThanOrEqual(5)
      expect(summary.backoffs).toBeGreaterThan(0)
    }))

  it.effect("compares a request's latency only with requests of its kind: pages slower than one-row listings are no queue", () =>
    Effect.gen(function*() {
      // A real WooCommerce: a listing of one row in 60 ms, a page of 100 in 300 ms, whatever the load.
      const shop = (_: number, __: number, kind: string) => ({ latencyMs: kind === "one row" ? 60 : 300, answer: ok })
      const demand = [{ count: 4, concurrency: 2, kind: "one row" }, { count: 400, concurrency: 32, kind: "page" }, { count: 4, concurrency: 4, kind: "one row" }]
      const logs: string[] = []
      const { starts, summary } = yield* drive({}, shop, demand, 6_000, 25).pipe(Effect.provide(capture(logs)))
      expect(logs).toEqual([])
      expect(peak(starts, 2_000)).toBe(16)
      expect(summary.backoffs).toBe(0)
    }))

  it.effect("does not take a new kind's first answers, which may have queued, for its best: it probes below them", () =>
    Effect.gen(function*() {
      // Listings of one row answered at once however many are in flight (the limit climbs to its ceiling on them),
      // then, while 16 are in flight, pages against a knee at 4: the first pages take 1.3 s, which a first best would
      // keep, reading 16 in flight as no queue for good.
      const shop = (_: number, inFlight: number, kind: string) =>
        ({ latencyMs: kind === "one row" ? 60 : 100 + 100 * Math.max(0, inFlight - 4), answer: ok })
      const demand = [{ count: 500, concurrency: 32, kind: (i: number) => (i < 120 ? "one row" : "page") }]
      const logs: string[] = []
      const { starts, summary } = yield* drive({}, shop, demand, 20_000, 25).pipe(Effect.provide(capture(logs)))
      const firstPage = starts[120]!.at
      expect(peak(starts, 0, firstPage)).toBe(16)
      const late = starts.filter((s) => s.at > firstPage + 5_000).map((s) => s.inFlight)
      expect(late.length).toBeGreaterThan(50)
      expect(late.reduce((a, b) => a + b, 0) / late.length).toBeLessThanOrEqual(5.5)
      expect(summary.concurrency).toBeLessThanOrEqual(6)
      expect(logs.some((l) => /answers slowed to 1\d{3} ms/.test(l))).toBe(true)
    }))

  it.effect("does not halve the pace for kinds met once each (a sync's heads, pages and counts): one answer says little of a queue", () =>
    Effect.gen(function*() {
      // An incremental sync against a store answering in 250 ms whatever the load: eight streams side by side, each a
      // head, a page and a count, one request at a time and each of a kind of its own. Probing each kind's first
      // answer (the limit halved for a round trip) took its 24 requests until 2 s (9 rounds instead of 7).
      const demand = Array.from({ length: 8 }, (_, lane) =>
        ["head", "page", "count"].map((what) => ({ count: 1, concurrency: 1, kind: `${what} ${lane}`, lane }))).flat()
      const { starts, summary } = yield* drive({}, () => ({ latencyMs: 250, answer: ok }), demand, 5_000, 25)
      expect(starts).toHaveLength(24)
      expect(Math.max(...starts.map((s) => s.at))).toBeLessThanOrEqual(1_500)
      expect(summary.backoffs).toBe(0)
    }))

  it.effect("backs off when one kind's answers show a queue, though another kind, whose best was slow, fills the windows", () =>
    Effect.gen(function*() {
      // Against a knee at 4: a walk, two at a time, and pages as many as allowed, whose first answers took 600 ms (a
      // cold cache). Measured against that best, the pages at 8 in flight (500 ms) look fine and are most of each
      // window; the walk's answers show the queue.
      let pages = 0
      const shop = (_: number, inFlight: number, kind: string) => {
        const cold = kind === "page" && ++pages <= 4
        return { latencyMs: cold ? 600 : 100 + 100 * Math.max(0, inFlight - 4), answer: ok }
      }
      const demand = [{ count: 4, concurrency: 2, kind: "page" }, { count: 2000, concurrency: 32, kind: "page" },
        { count: 2000, concurrency: 2, kind: "walk", lane: 1 }]
      const { starts } = yield* drive({}, shop, demand, 8_000, 25)
      const late = starts.filter((s) => s.at > 3_000).map((s) => s.inFlight)
      expect(late.reduce((a, b) => a + b, 0) / late.length).toBeLessThanOrEqual(5.5)
    }))

  it.effect("raises the limit only when requests filled it: a quiet start does not let a busy phase start at the ceiling", () =>
    Effect.gen(function*() {
      // Two at a time for 3 s (fast answers whatever the limit), then as many as allowed against a knee at 4.
      const knee = (_: number, inFlight: number) => ({ latencyMs: 100 + 100 * Math.max(0, inFlight - 4), answer: ok })
      const { starts } = yield* drive({}, knee, [{ count: 60, concurrency: 2 }, { count: 200, concurrency: 32 }], 8_000, 25)
      expect(peak(starts, 0, 3_000)).toBe(2)
      // Slow start from the limit the quiet phase used (2, doubled once): one doubling past the knee at most.
      expect(peak(starts, 3_000)).toBeLessThanOrEqual(8)
    }))

  it.effect("pauses every request until the reset once the quota is used up", () =>
    Effect.gen(function*() {
      // Five requests per window; the reset is two seconds off.
      const quota = (n: number) => ({ latencyMs: 10, answer: { status: 200, headers: { "ratelimit-remaining": String(Math.max(0, 5 - n)), "ratelimit-reset": "2" } } })
      const logs: string[] = []
      const { starts, summary } = yield* drive({ adaptive: false, maxConcurrency: 4 }, quota, 7, 2100, 10).pipe(Effect.provide(capture(logs)))
      expect(logs[0]).toMatch(/^test: the server's quota asks every request to wait \d+ ms$/)
      expect(starts.filter((s) => s.at < 2000)).toHaveLength(5)
      expect(starts[5]!.at).toBeGreaterThanOrEqual(2010)
      expect(summary.pauses).toBeGreaterThan(0)
    }))

  it.effect("holds every request for the Retry-After of a 429", () =>
    Effect.gen(function*() {
      const first429 = (n: number) => ({ latencyMs: n === 1 ? 10 : 20, answer: n === 1 ? { status: 429, headers: { "retry-after": "3" } } : ok })
      const { starts } = yield* drive({ adaptive: false, maxConcurrency: 2 }, first429, 5, 3100, 10)
      expect(starts.map((s) => s.at)).toEqual([0, 0, 3010, 3010, 3030])
    }))

  it.effect("keeps to STORE_MAX_RPS and to the concurrency ceiling in fixed mode", () =>
    Effect.gen(function*() {
      const paced = yield* drive({ maxRps: 4 }, () => ({ latencyMs: 1, answer: ok }), 20, 2000, 25)
      expect(paced.starts.map((s) => s.at).slice(0, 8)).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750])
      const fixed = yield* drive({ adaptive: false, maxConcurrency: 3 }, () => ({ latencyMs: 100, answer: ok }), 20, 500, 50)
      expect(fixed.starts.slice(0, 3).map((s) => s.at)).toEqual([0, 0, 0])
      expect(peak(fixed.starts)).toBe(3)
    }))

  it.effect("logs its pace at the level the caller calls calm, and at info for a period the server throttled", () => {
    const levels: string[] = []
    const logged = Logger.make(({ logLevel, message }) => void (String(message).startsWith("test pace:") && levels.push(logLevel.label)))
    return Effect.gen(function*() {
      const limit = yield* Effect.provide(AdaptiveLimit, AdaptiveLimitLive({ service: "test", maxConcurrency: 4, startConcurrency: 2, maxRps: undefined, adaptive: true }))
      const period = (answer: Answered) => Effect.zipRight(limit.run(Effect.succeed(answer)), limit.logSummary(LogLevel.Debug))
      yield* period(ok)
      yield* period({ status: 429, headers: {} })
      expect(levels).toEqual(["DEBUG", "INFO"])
    }).pipe(Effect.provide(Layer.merge(Logger.replace(Logger.defaultLogger, logged), Logger.minimumLogLevel(LogLevel.Debug))))
  })
})

describe("rate-limit headers", () => {
  const now = Date.parse("2026-03-01T10:00:00Z")
  it("reads RateLimit-* (reset in seconds), X-RateLimit-* (a Unix time, on the server's clock) and Retry-After", () => {
    expect(quotaOf({ "ratelimit-remaining": "3", "ratelimit-reset": "7" }, now)).toEqual({ remaining: 3, resetMs: 7000, retryAfterMs: 0 })
    // The server's clock is an hour behind ours: the reset is 5 s off by its clock.
    const serverNow = now - 3_600_000
    expect(quotaOf({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(serverNow / 1000 + 5), date: new Date(serverNow).toUTCString() }, now))
      .toEqual({ remaining: 0, resetMs: 5000, retryAfterMs: 0 })
    expect(quotaOf({ "retry-after": "2", ratelimit: '"default";r=0;t=9' }, now)).toEqual({ remaining: 0, resetMs: 9000, retryAfterMs: 2000 })
    expect(quotaOf({}, now)).toEqual({ remaining: undefined, resetMs: undefined, retryAfterMs: 0 })
  })
})
