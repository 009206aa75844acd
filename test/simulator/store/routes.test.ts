import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { call } from "./support.ts"

const NO_ROUTE = { code: "rest_no_route", message: "No route was found matching the URL and request method.", data: { status: 404 } }
const CANNOT_VIEW = { code: "woocommerce_rest_cannot_view", message: "Sorry, you cannot list resources.", data: { status: 401 } }

describe("store simulator: routes a store lacks or a key may not read", () => {
  let full: StoreSimulator
  let partial: StoreSimulator
  beforeAll(async () => {
    const data = { seed: 3, orders: 20, customers: 5, products: 4 }
    full = await startStoreSimulator({ data })
    partial = await startStoreSimulator({
      data,
      storeWideRefunds: false,
      routes: { disabled: ["/webhooks", "/taxes/"], forbidden: ["/settings", "/system_status", "/reports/sales"] }
    })
  })
  afterAll(async () => {
    await Promise.all([full.close(), partial.close()])
  })

  it("answers rest_no_route on a disabled prefix and everything below it, like an unknown route", async () => {
    for (const path of ["/webhooks", "/webhooks/1", "/taxes", "/taxes/classes", "/refunds"]) {
      expect(await call(partial, path), path).toMatchObject({ status: 404, body: NO_ROUTE })
    }
    expect((await call(partial, "/orders?per_page=1")).status).toBe(200)
    expect((await call(full, "/webhooks")).status).toBe(200)
  })

  it("answers 401 woocommerce_rest_cannot_view on a forbidden prefix, after checking the key and the route", async () => {
    for (const path of ["/settings", "/settings/general", "/system_status/tools", "/reports/sales"]) {
      expect(await call(partial, path), path).toMatchObject({ status: 401, body: CANNOT_VIEW })
    }
    expect((await call(partial, "/reports/top_sellers")).status).toBe(200)
    expect(await call(partial, "/settingsx")).toMatchObject({ status: 404, body: NO_ROUTE })
    expect(await call(partial, "/settings", { headers: { authorization: "Basic Y2tfeDpjc194" } })).toMatchObject({
      status: 401, body: { code: "woocommerce_rest_authentication_error" }
    })
  })

  it("answers GET on the API root with the namespace index of every route it serves", async () => {
    const index = await call<{ namespace: string; routes: Record<string, { namespace: string; methods: string[] }> }>(full, "")
    expect(index.status).toBe(200)
    expect(index.body.namespace).toBe("wc/v3")
    const { routes } = index.body
    expect(routes["/wc/v3"]).toMatchObject({ namespace: "wc/v3", methods: ["GET"] })
    expect(routes["/wc/v3/orders"]).toMatchObject({ namespace: "wc/v3", methods: ["GET", "POST"] })
    expect(routes["/wc/v3/orders/(?P<id>[\\d]+)"]?.methods).toEqual(expect.arrayContaining(["GET", "PUT", "DELETE"]))
    expect(routes["/wc/v3/orders/(?P<order_id>[\\d]+)/refunds"]?.methods).toContain("GET")
    expect(Object.keys(routes)).toEqual(expect.arrayContaining(["/wc/v3/refunds", "/wc/v3/webhooks", "/wc/v3/reports/sales", "/wc/v3/customers"]))
    expect(Object.keys(routes).some((k) => k.startsWith("/wc/v3/settings/(?P<"))).toBe(true)
    // Every listed route without parameters answers a GET it lists.
    for (const [key, route] of Object.entries(routes)) {
      if (key.includes("(") || !route.methods.includes("GET")) continue
      expect((await call(full, key.slice("/wc/v3".length))).status, key).not.toBe(404)
    }
    expect((await call(full, "/")).body).toEqual(index.body)
  })

  it("leaves disabled routes out of the index, and keeps forbidden ones in it", async () => {
    const keys = Object.keys((await call<{ routes: Record<string, unknown> }>(partial, "")).body.routes)
    expect(keys.filter((k) => /^\/wc\/v3\/(webhooks|taxes|refunds)\b/.test(k))).toEqual([])
    expect(keys).toEqual(expect.arrayContaining(["/wc/v3/orders", "/wc/v3/settings", "/wc/v3/reports/sales"]))
  })
})
