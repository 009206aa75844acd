// The client-credentials token: one fetch shared by concurrent requests, renewed a margin before
// expires_in, replaced after a 401 with exactly one retry of the refused request, failures not cached.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MarketingClient } from "../../src/marketing-client/client.js"
import { failureOf, type MarketingHarness, makeMarketingHarness, requestsTo, sharedClock } from "../support/marketing.js"

const listHooks = Effect.flatMap(MarketingClient, (c) => c.listHooks)
/** Statuses of the token endpoint's answers (0: connection dropped). */
const tokenCalls = (m: MarketingHarness) => requestsTo(m.mk, "POST", "/oauth/v2/token").map((r) => r.status)
const unauthorized = (m: MarketingHarness) => m.mk.requests.filter((r) => r.status === 401)

describe("token lifetime on a clock shared by the service and the client", () => {
  const clock = sharedClock()
  let m: MarketingHarness
  beforeAll(async () => {
    m = await makeMarketingHarness({ marketing: { clock, accessTokenTtlSeconds: 3600 }, settings: { tokenMarginSeconds: 60 }, clientNow: clock.now })
  })
  afterAll(() => m.close())

  it("concurrent requests wait for one token fetch and share it", async () => {
    const answers = await m.run(Effect.all(Array.from({ length: 8 }, () => listHooks), { concurrency: "unbounded" }))
    expect(answers).toHaveLength(8)
    expect(m.mk.state.tokenRequests).toBe(1)
    expect(requestsTo(m.mk, "GET", "/api/hooks")).toHaveLength(8)
  })

  it("keeps the token until a margin before expires_in, then fetches a new one before any request is refused", async () => {
    clock.advanceSeconds(3500)
    await m.run(listHooks)
    expect(m.mk.state.tokenRequests).toBe(1)
    clock.advanceSeconds(41) // 3541 s: inside the 60 s margin, still valid for the service
    await m.run(listHooks)
    expect(m.mk.state.tokenRequests).toBe(2)
    clock.advanceSeconds(3000)
    await m.run(listHooks)
    expect(m.mk.state.tokenRequests).toBe(2)
    expect(unauthorized(m)).toHaveLength(0)
  })

  it("with a lifetime shorter than twice the margin, renews half-way", async () => {
    const short = await makeMarketingHarness({ marketing: { clock, accessTokenTtlSeconds: 30 }, settings: { tokenMarginSeconds: 60 }, clientNow: clock.now })
    try {
      await short.run(listHooks)
      clock.advanceSeconds(14)
      await short.run(listHooks)
      expect(short.mk.state.tokenRequests).toBe(1)
      clock.advanceSeconds(2)
      await short.run(listHooks)
      expect(short.mk.state.tokenRequests).toBe(2)
      expect(unauthorized(short)).toHaveLength(0)
    } finally {
      await short.close()
    }
  })
})

describe("tokens the service stops accepting", () => {
  const serviceClock = sharedClock()
  let m: MarketingHarness
  beforeAll(async () => {
    // The client keeps real time: it cannot know the service expired or revoked its token.
    m = await makeMarketingHarness({ marketing: { clock: serviceClock, accessTokenTtlSeconds: 3600 }, settings: { concurrency: 1 } })
    await m.store.sync()
  })
  afterAll(() => m.close())

  it("expired by the service's clock: one 401, one new token, the request retried once", async () => {
    const client = m.client()
    try {
      await client.run(listHooks)
      serviceClock.advanceSeconds(3601)
      const before = m.mk.requests.length
      const hooks = await client.run(listHooks)
      expect(hooks).toEqual([])
      expect(m.mk.requests.slice(before).map((r) => `${r.method} ${r.url.split("?")[0]} ${r.status}`)).toEqual([
        "GET /api/hooks 401",
        "POST /oauth/v2/token 200",
        "GET /api/hooks 200"
      ])
      expect(m.mk.state.tokenRequests).toBe(2)
    } finally {
      await client.dispose()
    }
  })

  it("revoked early in the middle of a push: the push completes with one more token and one retried batch", async () => {
    const derived = (await m.store.rows<{ n: number }>("SELECT count(*)::int AS n FROM analytics.marketing_contacts WHERE store_id = 'test'"))[0]!.n
    expect(derived).toBeGreaterThan(200)
    const tokensBefore = m.mk.state.tokenRequests
    const unauthorizedBefore = unauthorized(m).length
    m.mk.setFaults([{ kind: "revoke", pathPrefix: "/api/contacts/batch/new", afterRequests: 1 }])
    const result = await m.push()
    m.mk.setFaults([])
    expect(result).toMatchObject({ created: derived, failed: 0, gaveUp: undefined, tokenRequests: 2 })
    expect(m.mk.state.tokenRequests - tokensBefore).toBe(2)
    expect(unauthorized(m).length - unauthorizedBefore).toBe(1)
    expect(requestsTo(m.mk, "POST", "/api/contacts/batch/new").map((r) => r.status)).toEqual([201, 401, 201])
    expect(m.mk.state.listContacts()).toHaveLength(derived)
  })

  it("a fresh token refused too fails the request after exactly one retry, saying what to check", async () => {
    const client = m.client()
    try {
      m.mk.setFaults([{ kind: "revoke", pathPrefix: "/api/hooks", times: 1000 }])
      const tokensBefore = m.mk.state.tokenRequests
      const before = requestsTo(m.mk, "GET", "/api/hooks").length
      const failure = failureOf(await client.runExit(listHooks))
      expect(failure?._tag).toBe("MarketingAuthFailed")
      expect(failure?.message).toContain("refused a freshly issued access token")
      expect(failure?.message).toContain("401")
      expect(requestsTo(m.mk, "GET", "/api/hooks").length - before).toBe(2)
      expect(m.mk.state.tokenRequests - tokensBefore).toBe(2)
    } finally {
      m.mk.setFaults([])
      await client.dispose()
    }
  })

  it("a failed token fetch is not cached: the next request fetches again", async () => {
    const client = m.client({}, { maxAttempts: 1 })
    try {
      m.mk.setFaults([{ kind: "503", pathPrefix: "/oauth/v2/token", times: 1 }])
      const before = tokenCalls(m).length
      const failure = failureOf(await client.runExit(listHooks))
      expect(failure).toMatchObject({ _tag: "MarketingRequestFailed", status: 503, transient: true })
      await client.run(listHooks)
      expect(tokenCalls(m).slice(before)).toEqual([503, 200])
    } finally {
      m.mk.setFaults([])
      await client.dispose()
    }
  })

  it("a token endpoint that fails for a moment is retried with backoff", async () => {
    const client = m.client()
    try {
      m.mk.setFaults([{ kind: "502", pathPrefix: "/oauth/v2/token", times: 1 }, { kind: "drop", pathPrefix: "/oauth/v2/token", times: 1 }])
      const before = tokenCalls(m).length
      await client.run(listHooks)
      expect(tokenCalls(m).slice(before)).toEqual([502, 0, 200])
    } finally {
      m.mk.setFaults([])
      await client.dispose()
    }
  })
})
