import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FaultRule, type StoreSimulator, manualClock, parseFaultSpec, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { AUTH, at, call } from "./support.ts"

describe("store simulator: fault injection", () => {
  const clock = manualClock(at("2025-01-01T00:00:00Z"))
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock, data: { seed: 3, orders: 40 } })
  })
  afterAll(() => sim.close())

  it("429: a JSON error with Retry-After and RateLimit headers", async () => {
    sim.setFaults([{ kind: "429", retryAfterSeconds: 7, times: 1 }])
    const res = await call(sim, "/orders")
    expect(res.status).toBe(429)
    expect(res.headers.get("retry-after")).toBe("7")
    expect(res.headers.get("ratelimit-limit")).toBe("25")
    expect(res.headers.get("ratelimit-remaining")).toBe("0")
    expect(res.headers.get("ratelimit-reset")).toBe(String(at("2025-01-01T00:00:07Z") / 1000))
    expect(res.body).toMatchObject({ code: expect.any(String), message: expect.any(String), data: { status: 429 } })
    expect((await call(sim, "/orders")).status).toBe(200)
  })

  it.each([500, 502, 503])("%i: the service's JSON error body", async (status) => {
    sim.setFaults([{ kind: String(status) as FaultRule["kind"], times: 1 }])
    const res = await call(sim, "/customers")
    expect(res.status).toBe(status)
    expect(res.headers.get("content-type")).toContain("application/json")
    expect(res.body).toMatchObject({ code: expect.any(String), data: { status } })
  })

  it("html5xx: a gateway's HTML page; empty5xx: no body at all", async () => {
    sim.setFaults([{ kind: "html5xx", times: 1 }, { kind: "empty5xx", times: 1, afterRequests: 1 }])
    const html = await call(sim, "/orders")
    expect(html.status).toBe(502)
    expect(html.headers.get("content-type")).toBe("text/html")
    expect(html.text).toContain("<title>502 Bad Gateway</title>")
    const empty = await call(sim, "/orders")
    expect(empty.status).toBe(503)
    expect(empty.text).toBe("")
    expect((await call(sim, "/orders")).status).toBe(200)
  })

  it("html404: a proxy's 404 page in the store's place, without the store's JSON error", async () => {
    sim.setFaults([{ kind: "html404", pathPrefix: "/orders/", times: 1 }])
    const page = await call(sim, "/orders/1")
    expect(page.status).toBe(404)
    expect(page.headers.get("content-type")).toBe("text/html")
    expect(page.text).toContain("<title>404 Not Found</title>")
    expect((await call(sim, "/orders")).status).toBe(200)
  })

  it("drop: the connection is destroyed without an answer (logged with status 0)", async () => {
    sim.setFaults([{ kind: "drop", times: 1 }])
    await expect(fetch(`${sim.url}/orders`, { headers: { authorization: AUTH } })).rejects.toThrow()
    expect(sim.requests[sim.requests.length - 1]).toMatchObject({ status: 0 })
    expect((await call(sim, "/orders")).status).toBe(200)
  })

  it("latency: the answer is delayed, then correct", async () => {
    sim.setFaults([{ kind: "latency", latencyMs: 300 }])
    const started = performance.now()
    const res = await call<unknown[]>(sim, "/orders?per_page=2")
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(2)
  })

  it("honours pathPrefix, afterRequests and times", async () => {
    sim.setFaults([{ kind: "503", pathPrefix: "/orders", afterRequests: 2, times: 2 }])
    const statuses: number[] = []
    for (const path of ["/orders", "/customers", "/orders", "/orders/1", "/orders", "/orders", "/customers"]) statuses.push((await call(sim, path)).status)
    // /orders/1 does not exist (404) but still counts as a matching request.
    expect(statuses).toEqual([200, 200, 200, 503, 503, 200, 200])
  })

  it("maxInARow: the same request is hit at most that many times in a row, other requests keep their own streak", async () => {
    sim.setFaults([{ kind: "502", maxInARow: 2 }])
    const statuses: number[] = []
    for (const path of ["/orders", "/orders", "/customers", "/orders", "/orders?page=2", "/orders", "/orders"]) statuses.push((await call(sim, path)).status)
    // After its pass the streak of /orders restarts; /customers and /orders?page=2 are other requests.
    expect(statuses).toEqual([502, 502, 502, 200, 502, 502, 502])
    sim.setFaults([])
  })

  it("maxInARow: a retry signed anew (OAuth 1.0a: a new nonce, timestamp and signature in its URL) is the same request", async () => {
    sim.setFaults([{ kind: "503", maxInARow: 2 }])
    const signed = (n: number) => `/orders?per_page=5&oauth_consumer_key=ck&oauth_nonce=n${n}&oauth_timestamp=${1_700_000_000 + n}&oauth_signature=s${n}`
    const statuses: number[] = []
    for (const n of [1, 2, 3]) statuses.push((await fetch(`${sim.url}${signed(n)}`)).status)
    // The third is not faulted (the nonces are not checked: the fault answers first, then auth refuses the fake signature).
    expect(statuses.slice(0, 2)).toEqual([503, 503])
    expect(statuses[2]).not.toBe(503)
    sim.setFaults([])
  })

  it("is deterministic for a seed: the same request sequence fails the same way", async () => {
    const pattern = async () => {
      sim.setFaults([{ kind: "500", probability: 0.3, seed: 42 }])
      const out: number[] = []
      for (let i = 0; i < 40; i++) out.push((await call(sim, "/products?per_page=1")).status)
      return out
    }
    const first = await pattern()
    expect(first).toEqual(await pattern())
    const failures = first.filter((s) => s === 500).length
    expect(failures).toBeGreaterThan(3)
    expect(failures).toBeLessThan(25)
    sim.setFaults([])
  })

  it("parses the compact CLI grammar", () => {
    expect(parseFaultSpec("429:0.05,drop:0.01,latency:250ms")).toEqual([
      { kind: "429", probability: 0.05 },
      { kind: "drop", probability: 0.01 },
      { kind: "latency", latencyMs: 250 },
    ])
    expect(parseFaultSpec("503:0.5;retry=3;path=/orders;times=2;after=10;seed=7, latency:1.5s;p=0.25")).toEqual([
      { kind: "503", probability: 0.5, retryAfterSeconds: 3, pathPrefix: "/orders", times: 2, afterRequests: 10, seed: 7 },
      { kind: "latency", latencyMs: 1500, probability: 0.25 },
    ])
    expect(parseFaultSpec("drop:0.3;burst=3")).toEqual([{ kind: "drop", probability: 0.3, maxInARow: 3 }])
    expect(parseFaultSpec("html5xx,empty5xx:1")).toEqual([{ kind: "html5xx" }, { kind: "empty5xx", probability: 1 }])
    expect(parseFaultSpec("")).toEqual([])
    expect(() => parseFaultSpec("teapot:1")).toThrow(/unknown kind/)
    expect(() => parseFaultSpec("500:2")).toThrow(/probability/)
    expect(() => parseFaultSpec("latency:soon")).toThrow(/duration/)
    expect(() => parseFaultSpec("500;colour=red")).toThrow(/unknown option/)
  })
})
