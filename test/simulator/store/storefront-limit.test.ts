// The storefront API's rate limiter (seed part 2 §8): off by default; limit/seconds; grouped per logged-in user, per
// IP (proxy headers with proxy support) or per fingerprint; only POSTs count, X-HTTP-Method-Override exempts; the
// checkout limit; the RateLimit-* headers. Time only moves through the simulator's manual clock.
import { afterEach, describe, expect, it } from "vitest"
import { type StoreSimulator, type StorefrontRateLimitOptions, manualClock } from "../../../src/simulator/store/index.ts"
import { at, call, emptyShop, simpleProductId } from "./support.ts"

const T0 = at("2025-11-01T12:00:00Z")

describe("store simulator: storefront rate limiting", () => {
  let sim: StoreSimulator | undefined
  const clock = manualClock(T0)
  afterEach(async () => {
    await sim?.close()
    sim = undefined
    clock.set(T0)
  })

  const start = async (limit: StorefrontRateLimitOptions | undefined, checkoutRateLimit = false) => {
    sim = await emptyShop({ clock, ...(limit === undefined ? {} : { storefrontRateLimit: limit }), checkoutRateLimit })
    return sim
  }
  const post = (s: StoreSimulator, path: string, headers: Record<string, string> = {}, body: unknown = {}) =>
    fetch(`${s.storefrontUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
  const addItem = (s: StoreSimulator, headers: Record<string, string> = {}) => post(s, "/cart/add-item", headers, { id: simpleProductId(s), quantity: 1 })

  it("is off by default", async () => {
    const s = await start(undefined)
    for (let i = 0; i < 40; i++) {
      const res = await addItem(s)
      expect(res.status).toBe(201)
      expect(res.headers.get("ratelimit-limit")).toBeNull()
    }
  })

  it("allows `limit` POSTs per window with RateLimit headers, then refuses with Retry-After until the window resets", async () => {
    const s = await start({ enabled: true, limit: 3, seconds: 10 })
    const reset = String(T0 / 1000 + 10)
    for (const remaining of ["2", "1", "0"]) {
      const res = await addItem(s)
      expect(res.status).toBe(201)
      expect(res.headers.get("ratelimit-limit")).toBe("3")
      expect(res.headers.get("ratelimit-remaining")).toBe(remaining)
      expect(res.headers.get("ratelimit-reset")).toBe(reset)
      expect(res.headers.get("ratelimit-retry-after")).toBeNull()
    }
    clock.advance(4000)
    const refused = await addItem(s)
    expect(refused.status).toBeGreaterThanOrEqual(400)
    expect(refused.status).toBeLessThan(500)
    expect(await refused.json()).toMatchObject({ code: "rate_limit_exceeded", data: { status: refused.status } })
    expect(refused.headers.get("ratelimit-remaining")).toBe("0")
    expect(refused.headers.get("ratelimit-retry-after")).toBe("6")
    expect(refused.headers.get("ratelimit-reset")).toBe(reset)
    clock.advance(7000)
    const again = await addItem(s)
    expect(again.status).toBe(201)
    expect(again.headers.get("ratelimit-remaining")).toBe("2")
  })

  it("uses the defaults of 25 requests per 10 seconds", async () => {
    const s = await start({ enabled: true })
    const first = await addItem(s)
    expect(first.headers.get("ratelimit-limit")).toBe("25")
    expect(first.headers.get("ratelimit-remaining")).toBe("24")
    expect(first.headers.get("ratelimit-reset")).toBe(String(T0 / 1000 + 10))
  })

  it("counts only POSTs; a POST overriding its method with X-HTTP-Method-Override is not limited", async () => {
    const s = await start({ enabled: true, limit: 1, seconds: 60 })
    expect((await addItem(s)).status).toBe(201)
    expect((await addItem(s)).status).toBe(400)
    for (let i = 0; i < 5; i++) {
      const get = await fetch(`${s.storefrontUrl}/cart`)
      expect(get.status).toBe(200)
      expect(get.headers.get("ratelimit-limit")).toBeNull()
    }
    const overridden = await post(s, "/cart/add-item", { "X-HTTP-Method-Override": "PUT" }, { id: simpleProductId(s) })
    expect(overridden.headers.get("ratelimit-limit")).toBeNull()
    expect(overridden.status).not.toBe(400)
    expect((await post(s, "/cart/add-item", { "X-HTTP-Method-Override": "POST" }, { id: simpleProductId(s) })).status).toBe(400)
  })

  it("groups unauthenticated requests by IP, from the forwarding headers only with proxy support", async () => {
    const s = await start({ enabled: true, limit: 1, seconds: 60, proxySupport: true })
    expect((await addItem(s, { "X-Forwarded-For": "203.0.113.7, 10.0.0.1" })).status).toBe(201)
    expect((await addItem(s, { "X-Forwarded-For": "203.0.113.7" })).status).toBe(400)
    expect((await addItem(s, { "X-Real-IP": "203.0.113.8" })).status).toBe(201)
    expect((await addItem(s, { "Client-IP": "203.0.113.9" })).status).toBe(201)
    expect((await addItem(s, { Forwarded: 'for="[2001:db8::17]:4711";proto=https' })).status).toBe(201)
    expect((await addItem(s, { Forwarded: "for=2001:db8::17" })).status).toBe(400)
    await sim!.close()
    const plain = await start({ enabled: true, limit: 1, seconds: 60 })
    expect((await addItem(plain, { "X-Forwarded-For": "198.51.100.1" })).status).toBe(201)
    expect((await addItem(plain, { "X-Forwarded-For": "198.51.100.2" })).status).toBe(400)
  })

  it("groups a logged-in customer's requests by user id, and by fingerprint when an extension supplies one", async () => {
    const s = await start({ enabled: true, limit: 1, seconds: 60 })
    const customer = await call<{ id: number }>(s, "/customers", { method: "POST", json: { email: "limit@example.com", username: "limited", password: "pw-123" } })
    expect(customer.status).toBe(201)
    const login = { authorization: `Basic ${Buffer.from("limited:pw-123").toString("base64")}` }
    expect((await addItem(s)).status).toBe(201)
    expect((await addItem(s)).status).toBe(400)
    expect((await addItem(s, login)).status).toBe(201)
    expect((await addItem(s, login)).status).toBe(400)
    await sim!.close()

    const seen: string[] = []
    const fp = await start({
      enabled: true,
      limit: 1,
      seconds: 60,
      fingerprint: (req) => String(req.headers["accept-language"] ?? ""),
      onExceeded: (ip, actionId) => seen.push(`${ip} ${actionId}`),
    })
    expect((await addItem(fp, { "Accept-Language": "en-US" })).status).toBe(201)
    expect((await addItem(fp, { "Accept-Language": "de-DE" })).status).toBe(201)
    expect((await addItem(fp, { "Accept-Language": "en-US" })).status).toBe(400)
    expect(seen).toEqual(["0.0.0.0 store_api_request_en-us"])
  })

  it("limits checkout to 3 requests per 60 seconds with the checkout setting, independently of the general limiter", async () => {
    const s = await start(undefined, true)
    const token = (await addItem(s)).headers.get("cart-token")!
    const checkout = async () => {
      await addItem(s, { "Cart-Token": token })
      return post(s, "/checkout", { "Cart-Token": token }, { billing_address: { email: "buyer@example.com" }, payment_method: "cod" })
    }
    for (const remaining of ["2", "1", "0"]) {
      const res = await checkout()
      expect(res.status).toBe(200)
      expect(res.headers.get("ratelimit-limit")).toBe("3")
      expect(res.headers.get("ratelimit-remaining")).toBe(remaining)
    }
    const refused = await checkout()
    expect(await refused.json()).toMatchObject({ code: "rate_limit_exceeded" })
    expect(refused.headers.get("ratelimit-retry-after")).toBe("60")
    expect((await addItem(s)).headers.get("ratelimit-limit")).toBeNull()
    clock.advance(61_000)
    expect((await checkout()).headers.get("ratelimit-remaining")).toBe("2")
  })

  it("places orders through checkout (created_via store-api) and is off for the REST API", async () => {
    const s = await start({ enabled: true, limit: 1, seconds: 60 })
    const cart = await addItem(s)
    const token = cart.headers.get("cart-token")!
    expect(token).toBeTruthy()
    clock.advance(61_000)
    const placed = await post(s, "/checkout", { "Cart-Token": token }, { billing_address: { email: "buyer@example.com", first_name: "Bea" }, payment_method: "cod" })
    expect(placed.status).toBe(200)
    const body = (await placed.json()) as { order_id: number; status: string }
    expect(body.status).toBe("processing")
    const order = await call<{ created_via: string; billing: { email: string } }>(s, `/orders/${body.order_id}`)
    expect(order.body).toMatchObject({ created_via: "store-api", billing: { email: "buyer@example.com" } })
    for (let i = 0; i < 5; i++) expect((await call(s, "/orders", { method: "POST", json: { status: "pending" } })).status).toBe(201)
  })
})
