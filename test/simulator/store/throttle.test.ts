import { afterEach, describe, expect, it } from "vitest"
import { TokenBucket } from "../../../src/simulator/http/throttle.ts"
import { manualClock, parseLatencyKnee, type StoreSimulator, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { at, call } from "./support.ts"

describe("store simulator: token bucket", () => {
  it("lets a burst through, then refills at the rate; reset is the time until full, Retry-After until one token", () => {
    const bucket = new TokenBucket(2, 5)
    const taken = [0, 0, 0, 0, 0].map(() => bucket.take(1000))
    expect(taken.map((t) => [t.ok, t.remaining])).toEqual([[true, 4], [true, 3], [true, 2], [true, 1], [true, 0]])
    expect(taken[4]!.resetSeconds).toBe(3) // 5 tokens at 2/s
    const refused = bucket.take(1000)
    expect(refused).toMatchObject({ ok: false, remaining: 0, retryAfterSeconds: 1 })
    expect(bucket.take(1400).ok).toBe(false) // 0.8 token
    expect(bucket.take(1500)).toMatchObject({ ok: true, remaining: 0 })
    expect(bucket.take(100_000)).toMatchObject({ ok: true, remaining: 4, resetSeconds: 1 })
  })

  it("a slow refill asks for a longer wait", () => {
    const bucket = new TokenBucket(0.25, 1)
    expect(bucket.take(0).ok).toBe(true)
    expect(bucket.take(0)).toMatchObject({ ok: false, retryAfterSeconds: 4, resetSeconds: 4 })
  })
})

describe("store simulator: rate limit and load", () => {
  const clock = manualClock(at("2026-01-01T00:00:00Z"))
  let sim: StoreSimulator | undefined
  afterEach(async () => {
    await sim?.close()
    sim = undefined
  })

  const burstOf = (n: number, path = "/orders?per_page=1") => Promise.all(Array.from({ length: n }, () => call(sim!, path)))

  it("RateLimit-* on every answer; past the burst a JSON 429 with Retry-After, logged as such", async () => {
    sim = await startStoreSimulator({ clock, data: { seed: 3, orders: 20 }, throttle: { rateLimit: { rps: 1, burst: 3 } } })
    const answers = await burstOf(5)
    const statuses = answers.map((a) => a.status).sort()
    expect(statuses).toEqual([200, 200, 200, 429, 429])
    const ok = answers.filter((a) => a.status === 200)
    expect(ok.map((a) => a.headers.get("ratelimit-remaining")).sort()).toEqual(["0", "1", "2"])
    expect(ok.every((a) => a.headers.get("ratelimit-limit") === "3")).toBe(true)
    const refused = answers.find((a) => a.status === 429)!
    expect(refused.headers.get("retry-after")).toBe("1")
    expect(refused.headers.get("ratelimit-remaining")).toBe("0")
    expect(Number(refused.headers.get("ratelimit-reset"))).toBe(3)
    expect(refused.body).toMatchObject({ code: expect.any(String), data: { status: 429 } })
    expect(sim.requests.filter((r) => r.status === 429)).toHaveLength(2)
  })

  it("X-RateLimit-* with the reset as a Unix time on the server's clock", async () => {
    sim = await startStoreSimulator({ clock, data: { seed: 3, orders: 20 }, throttle: { rateLimit: { rps: 2, burst: 2, headers: "x-ratelimit" } } })
    const [first] = await burstOf(1)
    expect(first!.headers.get("x-ratelimit-limit")).toBe("2")
    expect(first!.headers.get("x-ratelimit-remaining")).toBe("1")
    expect(Number(first!.headers.get("x-ratelimit-reset"))).toBe(at("2026-01-01T00:00:01Z") / 1000)
    expect(first!.headers.get("ratelimit-remaining")).toBeNull()
  })

  it("without rate-limit headers: a bare 429 with Retry-After", async () => {
    sim = await startStoreSimulator({ clock, data: { seed: 3, orders: 20 }, throttle: { rateLimit: { rps: 0.5, burst: 1, headers: "none" } } })
    const answers = await burstOf(2)
    const refused = answers.find((a) => a.status === 429)!
    expect(refused.headers.get("retry-after")).toBe("2")
    expect([...refused.headers.keys()].filter((k) => k.includes("ratelimit"))).toEqual([])
  })

  it("latency grows with the requests in flight beyond the knee, and with the rows asked for", async () => {
    // A base of 400 ms keeps the first of a burst in flight while the other three arrive, even on a loaded machine
    // (at 40 ms a late arrival found one fewer in flight).
    sim = await startStoreSimulator({ clock, data: { seed: 3, orders: 20 }, throttle: { latency: { baseMs: 400, knee: 2, perExtraMs: 150 } } })
    const page = "/orders?per_page=100"
    const started = performance.now()
    const alone = await burstOf(1, page)
    const aloneMs = performance.now() - started
    expect(alone[0]!.status).toBe(200)
    expect(aloneMs).toBeGreaterThanOrEqual(399)
    // That it was charged the base alone is in inFlightAtArrival below (1 in flight): an upper bound on wall time
    // would measure the machine's load, not the simulator.
    const t0 = performance.now()
    await burstOf(4, page)
    // The fourth arrival found three others: 400 + 2 × 150 ms.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(699)
    expect(sim.inFlightAtArrival).toEqual([1, 1, 2, 3, 4])
    // One row costs a fifth of a page of 100 plus its share (as on a real WooCommerce): 400 × (0.2 + 0.008) ms.
    const t1 = performance.now()
    await burstOf(1)
    const oneRowMs = performance.now() - t1
    expect(oneRowMs).toBeGreaterThanOrEqual(82)
    expect(oneRowMs).toBeLessThan(399)
  })

  it("parses BASE,KNEE,PER_EXTRA", () => {
    expect(parseLatencyKnee("100ms,4,50ms")).toEqual({ baseMs: 100, knee: 4, perExtraMs: 50 })
    expect(parseLatencyKnee("0.2s, 8, 25")).toEqual({ baseMs: 200, knee: 8, perExtraMs: 25 })
    expect(() => parseLatencyKnee("100ms,4")).toThrow(/BASE,KNEE,PER_EXTRA/)
    expect(() => parseLatencyKnee("100ms,0,5ms")).toThrow(/knee must be a whole number/)
    expect(() => parseLatencyKnee("fast,4,5ms")).toThrow(/^latency knee: "fast" is not a duration/)
  })
})
