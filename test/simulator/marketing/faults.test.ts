import { afterEach, describe, expect, it } from "vitest"
import {
  parseMarketingFaultSpec,
  startMarketingSimulator,
  type MarketingFaultRule,
  type MarketingSimulator,
  type MarketingSimulatorOptions,
} from "../../../src/simulator/marketing/index.ts"
import { clientToken, json, manualClock } from "./support.ts"

let sims: MarketingSimulator[] = []
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()))
  sims = []
})

/** A simulator with a token taken before any fault is switched on. */
const start = async (faults: MarketingFaultRule[], options: MarketingSimulatorOptions = {}) => {
  const sim = await startMarketingSimulator(options)
  sims.push(sim)
  const token = await clientToken(sim)
  sim.setFaults(faults)
  const get = (path = "/api/contacts") => fetch(`${sim.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })
  return { sim, get }
}

describe("fault kinds", () => {
  it("429 carries the real message and X-RateLimit headers, then lets requests through", async () => {
    const { sim, get } = await start([{ kind: "429", times: 1, retryAfterSeconds: 30 }])
    const nowSeconds = Math.floor(Date.now() / 1000)
    const limited = await get()
    expect(limited.status).toBe(429)
    expect(await json(limited)).toEqual({
      errors: [{ code: 429, message: "You exceeded the rate limit of 1000 API calls per hour." }],
    })
    expect(limited.headers.get("x-ratelimit-limit")).toBe("1000")
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0")
    expect(Number(limited.headers.get("x-ratelimit-reset"))).toBeGreaterThanOrEqual(nowSeconds + 29)
    expect(limited.headers.get("retry-after")).toBe("30")
    expect((await get()).status).toBe(200)
    expect(sim.requests.map((r) => r.status).slice(-2)).toEqual([429, 200])
  })

  it("500 answers the service's JSON error; 502 an HTML page; 503 an empty body", async () => {
    const { get } = await start([
      { kind: "500", times: 1 },
      { kind: "502", times: 1 },
      { kind: "503", times: 1, body: "empty", retryAfterSeconds: 5 },
    ])
    const e500 = await get()
    expect(e500.status).toBe(500)
    expect(e500.headers.get("content-type")).toMatch(/json/)
    expect((await json(e500)).errors[0].code).toBe(500)
    const e502 = await get()
    expect(e502.status).toBe(502)
    expect(e502.headers.get("content-type")).toMatch(/text\/html/)
    expect(await e502.text()).toContain("502 Bad Gateway")
    const e503 = await get()
    expect(e503.status).toBe(503)
    expect(e503.headers.get("retry-after")).toBe("5")
    expect(await e503.text()).toBe("")
    expect((await get()).status).toBe(200)
  })

  it("the body option switches a 500 to HTML and a 502 to JSON", async () => {
    const { get } = await start([
      { kind: "500", times: 1, body: "html" },
      { kind: "502", times: 1, body: "json" },
    ])
    expect(await (await get()).text()).toContain("<html>")
    expect((await json(await get())).errors[0].code).toBe(502)
  })

  it("drop resets the connection without an answer", async () => {
    const { sim, get } = await start([{ kind: "drop", times: 1 }])
    await expect(get()).rejects.toThrow()
    expect(sim.requests.at(-1)).toMatchObject({ status: 0 })
    expect((await get()).status).toBe(200)
  })

  it("latency delays the answer", async () => {
    const { get } = await start([{ kind: "latency", latencyMs: 150 }])
    const started = performance.now()
    expect((await get()).status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
  })

  it("revoke invalidates every token early, once by default", async () => {
    const { sim, get } = await start([{ kind: "revoke", afterRequests: 1 }])
    expect((await get()).status).toBe(200)
    const revoked = await get()
    expect(revoked.status).toBe(401)
    expect((await json(revoked)).errors[0].message).toBe("The access token provided is invalid.")
    const fresh = await clientToken(sim)
    const again = await fetch(`${sim.baseUrl}/api/contacts`, { headers: { authorization: `Bearer ${fresh}` } })
    expect(again.status).toBe(200)
  })

  it("pathPrefix and afterRequests pick which requests fail", async () => {
    const { get } = await start([{ kind: "503", pathPrefix: "/api/contacts", afterRequests: 2, times: 1 }])
    expect((await get("/api/hooks")).status).toBe(200)
    expect((await get("/api/contacts")).status).toBe(200)
    expect((await get("/api/contacts")).status).toBe(200)
    expect((await get("/api/hooks")).status).toBe(200)
    expect((await get("/api/contacts")).status).toBe(503)
    expect((await get("/api/contacts")).status).toBe(200)
  })

  it("probabilities are deterministic for a seed", async () => {
    const run = async () => {
      const { get } = await start([{ kind: "429", probability: 0.3 }], { faultSeed: 7 })
      const statuses: number[] = []
      for (let i = 0; i < 40; i++) statuses.push((await get()).status)
      return statuses
    }
    const first = await run()
    expect(await run()).toEqual(first)
    expect(first).toContain(429)
    expect(first).toContain(200)
  })

  it("setFaults([]) switches faults off", async () => {
    const { sim, get } = await start([{ kind: "500" }])
    expect((await get()).status).toBe(500)
    sim.setFaults([])
    expect((await get()).status).toBe(200)
  })
})

describe("the hourly rate limit", () => {
  it("announces the remaining calls and answers 429 past the limit until the hour is over", async () => {
    const clock = manualClock()
    const { get } = await start([], { rateLimitPerHour: 3, clock, accessTokenTtlSeconds: 7200 })
    const remaining: Array<string | null> = []
    for (let i = 0; i < 3; i++) {
      const res = await get()
      expect(res.status).toBe(200)
      remaining.push(res.headers.get("x-ratelimit-remaining"))
    }
    expect(remaining).toEqual(["2", "1", "0"])
    const limited = await get()
    expect(limited.status).toBe(429)
    expect(await json(limited)).toEqual({
      errors: [{ code: 429, message: "You exceeded the rate limit of 3 API calls per hour." }],
    })
    expect(limited.headers.get("x-ratelimit-limit")).toBe("3")
    expect(Number(limited.headers.get("x-ratelimit-reset"))).toBe(clock.now() / 1000 + 3600)
    clock.advanceSeconds(3600)
    expect((await get()).status).toBe(200)
  })
})

describe("parseMarketingFaultSpec", () => {
  it("reads the compact grammar", () => {
    expect(parseMarketingFaultSpec("429:0.05,drop:0.01,latency:250ms")).toEqual([
      { kind: "429", probability: 0.05 },
      { kind: "drop", probability: 0.01 },
      { kind: "latency", latencyMs: 250 },
    ])
    expect(parseMarketingFaultSpec(" 503;times=2;path=/api/contacts;retry=5;body=empty , latency:2s;p=0.5, revoke;after=10")).toEqual([
      { kind: "503", times: 2, pathPrefix: "/api/contacts", retryAfterSeconds: 5, body: "empty" },
      { kind: "latency", latencyMs: 2000, probability: 0.5 },
      { kind: "revoke", afterRequests: 10 },
    ])
    expect(parseMarketingFaultSpec("")).toEqual([])
  })

  it("names what is wrong with a bad rule", () => {
    expect(() => parseMarketingFaultSpec("418")).toThrow(/unknown kind "418"/)
    expect(() => parseMarketingFaultSpec("429:1.5")).toThrow(/probability/)
    expect(() => parseMarketingFaultSpec("latency")).toThrow(/duration/)
    expect(() => parseMarketingFaultSpec("latency:fast")).toThrow(/duration/)
    expect(() => parseMarketingFaultSpec("500;colour=red")).toThrow(/unknown option "colour"/)
  })
})
