// Reference data, settings, shipping zones and methods, system status tools, product reviews and the reports list.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock } from "../../../src/simulator/store/index.ts"
import { at, call, emptyShop, simpleProductId } from "./support.ts"

type Json = Record<string, any>

describe("store simulator: shop configuration", () => {
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await emptyShop({ clock: manualClock(at("2025-09-01T12:00:00Z")) })
  })
  afterAll(() => sim.close())

  describe("reference data", () => {
    it("names the data endpoints, continents with countries and states, countries, currencies", async () => {
      expect((await call<Json[]>(sim, "/data")).body.map((d) => d["slug"])).toEqual(["continents", "countries", "currencies"])
      const continents = (await call<Json[]>(sim, "/data/continents")).body
      expect(continents.map((c) => c["code"]).sort()).toEqual(["AF", "AN", "AS", "EU", "NA", "OC", "SA"])
      const na = (await call<Json>(sim, "/data/continents/na")).body
      const us = na["countries"].find((c: Json) => c["code"] === "US")
      expect(us).toMatchObject({ currency_code: "USD", num_decimals: 2, weight_unit: expect.any(String) })
      expect(us["states"]).toContainEqual({ code: "NY", name: "New York" })
      expect((await call<Json>(sim, "/data/countries/ca")).body).toMatchObject({ code: "CA", states: expect.arrayContaining([{ code: "ON", name: "Ontario" }]) })
      expect((await call(sim, "/data/countries/zz")).status).toBe(404)
      expect((await call(sim, "/data/continents/xx")).status).toBe(404)
      const currencies = (await call<Json[]>(sim, "/data/currencies")).body
      expect(currencies.map((c) => c["code"])).toEqual(expect.arrayContaining(["USD", "EUR", "GBP", "JPY", "BTC"]))
      expect((await call<Json>(sim, "/data/currencies/eur")).body).toMatchObject({ code: "EUR", symbol: "€", name: expect.any(String) })
    })

    it("answers the current currency from the currency setting", async () => {
      expect((await call<Json>(sim, "/data/currencies/current")).body["code"]).toBe("USD")
      await call(sim, "/settings/general/woocommerce_currency", { method: "PUT", json: { value: "EUR" } })
      expect((await call<Json>(sim, "/data/currencies/current")).body).toMatchObject({ code: "EUR", symbol: "€" })
      const order = await call<Json>(sim, "/orders", { method: "POST", json: { status: "pending" } })
      expect(order.body["currency"]).toBe("EUR")
      await call(sim, "/settings/general/woocommerce_currency", { method: "PUT", json: { value: "USD" } })
    })
  })

  describe("settings", () => {
    it("lists groups and a group's options; reads and updates one option with validation", async () => {
      expect((await call<Json[]>(sim, "/settings")).body.map((g) => g["id"])).toEqual(expect.arrayContaining(["general", "products", "tax", "shipping", "account", "email", "advanced"]))
      const general = (await call<Json[]>(sim, "/settings/general")).body
      const country = general.find((o) => o["id"] === "woocommerce_default_country")!
      expect(country).toMatchObject({ type: "select", group_id: "general", options: expect.any(Object), value: expect.any(String) })
      const updated = await call<Json>(sim, "/settings/general/woocommerce_store_city", { method: "PUT", json: { value: "Boston" } })
      expect(updated.body).toMatchObject({ id: "woocommerce_store_city", value: "Boston" })
      expect((await call<Json>(sim, "/settings/general/woocommerce_store_city")).body["value"]).toBe("Boston")
      expect((await call(sim, "/settings/general/woocommerce_currency_pos", { method: "PUT", json: { value: "upside-down" } })).body).toMatchObject({ code: "rest_setting_value_invalid" })
      expect((await call(sim, "/settings/general/woocommerce_calc_taxes", { method: "PUT", json: { value: "maybe" } })).status).toBe(400)
      expect((await call(sim, "/settings/nope")).status).toBe(404)
      expect((await call(sim, "/settings/general/nope")).status).toBe(404)
    })

    it("updates a group in a batch, failing bad items in place", async () => {
      const res = await call<Json>(sim, "/settings/general/batch", {
        method: "POST",
        json: { update: [{ id: "woocommerce_store_address", value: "1 Main St" }, { id: "woocommerce_currency_pos", value: "nowhere" }, { id: "no_such_option", value: "x" }] },
      })
      expect(res.status).toBe(200)
      expect(res.body["update"][0]).toMatchObject({ id: "woocommerce_store_address", value: "1 Main St" })
      expect(res.body["update"][1]).toMatchObject({ id: "woocommerce_currency_pos", error: { code: "rest_setting_value_invalid" } })
      expect(res.body["update"][2]).toMatchObject({ id: "no_such_option", error: { code: "rest_setting_setting_invalid" } })
    })
  })

  describe("shipping zones", () => {
    it("lists zone 0 first, creates, updates and deletes zones (force), and refuses to edit zone 0", async () => {
      const zones = (await call<Json[]>(sim, "/shipping/zones")).body
      expect(zones[0]).toMatchObject({ id: 0 })
      expect((await call(sim, "/shipping/zones", { method: "POST", json: {} })).status).toBe(400)
      const zone = await call<Json>(sim, "/shipping/zones", { method: "POST", json: { name: "Canada", order: 5 } })
      expect(zone.status).toBe(201)
      expect(zone.body).toMatchObject({ name: "Canada", order: 5 })
      expect((await call<Json>(sim, `/shipping/zones/${zone.body["id"]}`, { method: "PUT", json: { name: "Canada (CA)" } })).body["name"]).toBe("Canada (CA)")
      expect((await call(sim, "/shipping/zones/0", { method: "PUT", json: { name: "x" } })).status).toBe(403)
      expect((await call(sim, `/shipping/zones/${zone.body["id"]}?force=true`, { method: "DELETE" })).status).toBe(200)
      expect((await call(sim, `/shipping/zones/${zone.body["id"]}`)).status).toBe(404)
    })

    it("adds methods to a zone (method_id mandatory) with their settings", async () => {
      const zone = (await call<Json>(sim, "/shipping/zones", { method: "POST", json: { name: "Mexico" } })).body
      expect((await call(sim, `/shipping/zones/${zone["id"]}/methods`, { method: "POST", json: {} })).status).toBe(400)
      const method = await call<Json>(sim, `/shipping/zones/${zone["id"]}/methods`, { method: "POST", json: { method_id: "free_shipping", settings: { min_amount: "50", requires: "min_amount" } } })
      expect(method.status).toBe(201)
      expect(method.body).toMatchObject({ method_id: "free_shipping", method_title: "Free shipping", enabled: true, title: "Free shipping" })
      expect(method.body["settings"]["min_amount"]).toMatchObject({ id: "min_amount", value: "50" })
      expect(method.body["_links"]["describes"][0]["href"]).toBe(`${sim.url}/shipping/zones/${zone["id"]}`)
      const one = await call<Json>(sim, `/shipping/zones/${zone["id"]}/methods/${method.body["instance_id"]}`)
      expect(one.body).toEqual(method.body)
      expect((await call<Json[]>(sim, `/shipping/zones/${zone["id"]}/methods`)).body.map((m) => m["instance_id"])).toEqual([method.body["instance_id"]])
      expect((await call(sim, `/shipping/zones/${zone["id"]}/methods`, { method: "POST", json: { method_id: "teleport" } })).status).toBe(400)
    })
  })

  describe("system status tools", () => {
    it("lists the tools and runs one only with confirm=true", async () => {
      const tools = (await call<Json[]>(sim, "/system_status/tools")).body
      expect(tools.map((t) => t["id"])).toEqual(expect.arrayContaining(["clear_transients", "delete_taxes", "recount_terms", "verify_db_tables", "regenerate_product_lookup_tables"]))
      expect(tools).toHaveLength(17)
      expect((await call(sim, "/system_status/tools/nope")).status).toBe(404)
      const notRun = await call<Json>(sim, "/system_status/tools/delete_taxes", { method: "PUT", json: {} })
      expect(notRun.body["success"]).toBe(false)
      expect((await call<Json[]>(sim, "/taxes")).body.length).toBeGreaterThan(0)
      const run = await call<Json>(sim, "/system_status/tools/delete_taxes", { method: "PUT", json: { confirm: true } })
      expect(run.body).toMatchObject({ id: "delete_taxes", success: true, message: expect.any(String) })
      expect((await call<Json[]>(sim, "/taxes")).body).toEqual([])
    })
  })

  describe("product reviews", () => {
    it("keeps a product's rating in step with its approved reviews", async () => {
      const product = (await call<Json>(sim, "/products", { method: "POST", json: { name: "Reviewed Mug", regular_price: "5" } })).body
      const a = await call<Json>(sim, "/products/reviews", { method: "POST", json: { product_id: product["id"], review: "Lovely", reviewer: "Ann", reviewer_email: "ann@example.com", rating: 5 } })
      expect(a.status).toBe(201)
      expect(a.body).toMatchObject({ product_id: product["id"], status: "approved", reviewer: "Ann", reviewer_email: "ann@example.com", rating: 5, verified: false })
      await call(sim, "/products/reviews", { method: "POST", json: { product_id: product["id"], review: "Meh", reviewer: "Bo", reviewer_email: "bo@example.com", rating: 2 } })
      expect((await call<Json>(sim, `/products/${product["id"]}`)).body).toMatchObject({ rating_count: 2, average_rating: "3.50" })
      await call(sim, `/products/reviews/${a.body["id"]}`, { method: "PUT", json: { status: "hold" } })
      expect((await call<Json>(sim, `/products/${product["id"]}`)).body).toMatchObject({ rating_count: 1, average_rating: "2.00" })
      expect((await call<Json[]>(sim, `/products/reviews?product=${product["id"]}`)).body).toHaveLength(1)
      expect((await call<Json[]>(sim, `/products/reviews?product=${product["id"]}&status=hold`)).body.map((r) => r["id"])).toEqual([a.body["id"]])
      await call(sim, `/products/reviews/${a.body["id"]}`, { method: "PUT", json: { status: "spam" } })
      await call(sim, `/products/reviews/${a.body["id"]}`, { method: "PUT", json: { status: "unspam" } })
      expect((await call<Json>(sim, `/products/reviews/${a.body["id"]}`)).body["status"]).toBe("hold")
      const deleted = await call<Json>(sim, `/products/reviews/${a.body["id"]}?force=true`, { method: "DELETE" })
      expect(deleted.body).toMatchObject({ deleted: true, previous: { id: a.body["id"] } })
      expect((await call(sim, "/products/reviews", { method: "POST", json: { product_id: 999999, review: "x" } })).status).toBe(404)
      expect((await call(sim, "/products/reviews", { method: "POST", json: { product_id: product["id"], review: "x", rating: 9 } })).status).toBe(400)
    })

    it("filters reviews by reviewer e-mail and product, newest first by default", async () => {
      const product = simpleProductId(sim)
      await call(sim, "/products/reviews", { method: "POST", json: { product_id: product, review: "First", reviewer: "Cy", reviewer_email: "cy@example.com", rating: 4 } })
      const list = (await call<Json[]>(sim, "/products/reviews?reviewer_email=cy@example.com")).body
      expect(list.map((r) => r["reviewer"])).toEqual(["Cy"])
      const all = (await call<Json[]>(sim, "/products/reviews?per_page=100")).body.map((r) => r["date_created_gmt"] as string)
      expect(all).toEqual([...all].sort().reverse())
    })
  })

  it("generates reviews whose approved ratings match the products' rating counts", async () => {
    for (const p of sim.state.products.slice(0, 6)) {
      const approved = sim.state.reviews.all.filter((r) => r.productId === p.id && r.status === "approved" && r.rating > 0)
      expect(approved.length, `product ${p.id}`).toBe(p.ratings.reduce((a, b) => a + b, 0))
    }
  })

  it("lists every report, including each totals report", async () => {
    const slugs = (await call<Json[]>(sim, "/reports")).body.map((r) => r["slug"])
    expect(slugs).toEqual(expect.arrayContaining(["sales", "top_sellers", "coupons/totals", "customers/totals", "orders/totals", "products/totals", "reviews/totals"]))
    for (const slug of ["coupons/totals", "customers/totals", "orders/totals", "products/totals", "reviews/totals"]) {
      const rows = (await call<Json[]>(sim, `/reports/${slug}`)).body
      expect(rows.length, slug).toBeGreaterThan(0)
      for (const row of rows) expect(Object.keys(row).sort(), slug).toEqual(["name", "slug", "total"])
    }
  })
})
