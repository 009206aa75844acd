import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, startStoreSimulator } from "../../../src/simulator/store/index.ts"

describe("store simulator: authentication, routing and errors", () => {
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await startStoreSimulator({ consumerKey: "ck_test", consumerSecret: "cs_test" })
  })
  afterAll(() => sim.close())
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`

  it("has its API root ending in /v3 on loopback", () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/wp-json\/wc\/v3$/)
  })

  it.each([
    ["no credentials", undefined, "Consumer key is missing."],
    ["a wrong key", basic("ck_nope", "cs_test"), "Consumer key is invalid."],
    ["a wrong secret", basic("ck_test", "cs_nope"), "Consumer secret is invalid."],
    ["a bearer token", "Bearer abc", "Consumer key is missing."],
  ])("answers 401 woocommerce_rest_authentication_error for %s", async (_, authorization, message) => {
    const res = await fetch(`${sim.url}/orders`, { headers: authorization === undefined ? {} : { authorization } })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ code: "woocommerce_rest_authentication_error", message, data: { status: 401 } })
  })

  it("accepts the key and secret as query parameters, like the real service", async () => {
    const res = await fetch(`${sim.url}/orders?per_page=1&consumer_key=ck_test&consumer_secret=cs_test`)
    expect(res.status).toBe(200)
    expect(await res.json()).toHaveLength(1)
  })

  it("answers rest_no_route for unknown paths, wrong methods and non-numeric ids", async () => {
    const auth = { authorization: basic("ck_test", "cs_test") }
    for (const [method, path] of [
      ["GET", "/nope"],
      ["GET", "/orders/abc"],
      ["DELETE", "/customers"],
      ["GET", "/orders/1/refunds/x"],
    ] as const) {
      const res = await fetch(`${sim.url}${path}`, { method, headers: auth })
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(await res.json()).toEqual({ code: "rest_no_route", message: "No route was found matching the URL and request method.", data: { status: 404 } })
    }
    const outside = await fetch(sim.url.replace("/wc/v3", "/wc/v2") + "/orders", { headers: auth })
    expect(outside.status).toBe(404)
  })

  it("answers woocommerce_rest_<type>_invalid_id: 404 on read, 400 on update", async () => {
    const auth = { authorization: basic("ck_test", "cs_test"), "content-type": "application/json" }
    const cases: Array<[string, string, number, string]> = [
      ["GET", "/orders/999999", 404, "woocommerce_rest_shop_order_invalid_id"],
      ["DELETE", "/orders/999999", 404, "woocommerce_rest_shop_order_invalid_id"],
      ["PUT", "/orders/999999", 400, "woocommerce_rest_shop_order_invalid_id"],
      ["GET", "/customers/999999", 404, "woocommerce_rest_customer_invalid_id"],
      ["PUT", "/customers/999999", 400, "woocommerce_rest_customer_invalid_id"],
      ["GET", "/products/999999", 404, "woocommerce_rest_product_invalid_id"],
      ["PUT", "/products/999999", 400, "woocommerce_rest_product_invalid_id"],
    ]
    for (const [method, path, status, code] of cases) {
      const res = await fetch(`${sim.url}${path}`, { method, headers: auth, ...(method === "PUT" ? { body: "{}" } : {}) })
      expect(res.status, `${method} ${path}`).toBe(status)
      expect(await res.json()).toMatchObject({ code, data: { status } })
    }
  })

  it("rejects a malformed JSON body with rest_invalid_json", async () => {
    const res = await fetch(`${sim.url}/orders`, { method: "POST", headers: { authorization: basic("ck_test", "cs_test"), "content-type": "application/json" }, body: "{nope" })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ code: "rest_invalid_json", data: { status: 400 } })
  })

  it("logs every request with its status, and dates answers with the simulator clock", async () => {
    const before = sim.requests.length
    const res = await fetch(`${sim.url}/customers?per_page=2`, { headers: { authorization: basic("ck_test", "cs_test") } })
    await res.text()
    expect(sim.requests.slice(before)).toEqual([{ method: "GET", url: "/wp-json/wc/v3/customers?per_page=2", status: 200 }])
    expect(Math.abs(Date.parse(res.headers.get("date")!) - Date.now())).toBeLessThan(5_000)
  })
})
