// Attributes and terms (deleting an attribute deletes its terms), categories, shipping classes, tax rates (the 5.3
// arrays and the deprecated single fields) and tax classes (deleting a class deletes its rates).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock } from "../../../src/simulator/store/index.ts"
import { at, call, emptyShop } from "./support.ts"

type Json = Record<string, any>

describe("store simulator: attributes, terms, categories, shipping classes", () => {
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await emptyShop({ clock: manualClock(at("2025-08-01T12:00:00Z")) })
  })
  afterAll(() => sim.close())

  it("creates an attribute (name mandatory), its terms, and refuses a slug in use", async () => {
    expect((await call(sim, "/products/attributes", { method: "POST", json: { slug: "x" } })).status).toBe(400)
    const attr = await call<Json>(sim, "/products/attributes", { method: "POST", json: { name: "Material", has_archives: true } })
    expect(attr.status).toBe(201)
    expect(attr.body).toMatchObject({ name: "Material", slug: "pa_material", type: "select", order_by: "menu_order", has_archives: true })
    expect((await call(sim, "/products/attributes", { method: "POST", json: { name: "Material again", slug: "material" } })).status).toBe(400)
    const id = attr.body["id"]
    for (const name of ["Wool", "Cotton", "Linen"]) expect((await call(sim, `/products/attributes/${id}/terms`, { method: "POST", json: { name } })).status).toBe(201)
    const terms = (await call<Json[]>(sim, `/products/attributes/${id}/terms`)).body
    expect(terms.map((t) => t["name"])).toEqual(["Cotton", "Linen", "Wool"])
    expect(terms[0]).toMatchObject({ slug: "cotton", description: "", menu_order: 0, count: 0 })
    expect((await call<Json[]>(sim, `/products/attributes/${id}/terms?order=desc&orderby=name`)).body.map((t) => t["name"])).toEqual(["Wool", "Linen", "Cotton"])
    expect((await call<Json[]>(sim, `/products/attributes/${id}/terms?search=lin`)).body.map((t) => t["name"])).toEqual(["Linen"])
  })

  it("counts products holding a term, and finds a product's terms", async () => {
    const product = (await call<Json>(sim, "/products", { method: "POST", json: { name: "Wool Socks", attributes: [{ id: 1, options: ["M", "XXL"] }] } })).body
    const terms = (await call<Json[]>(sim, `/products/attributes/1/terms?product=${product["id"]}`)).body
    expect(terms.map((t) => t["name"]).sort()).toEqual(["M", "XXL"])
    const all = (await call<Json[]>(sim, "/products/attributes/1/terms?per_page=100")).body
    expect(all.find((t) => t["name"] === "XXL")!["count"]).toBe(1)
    expect((await call<Json[]>(sim, "/products/attributes/1/terms?hide_empty=true&per_page=100")).body.every((t) => t["count"] > 0)).toBe(true)
  })

  it("deleting an attribute deletes its terms", async () => {
    const attr = (await call<Json>(sim, "/products/attributes", { method: "POST", json: { name: "Pattern" } })).body
    const term = (await call<Json>(sim, `/products/attributes/${attr["id"]}/terms`, { method: "POST", json: { name: "Striped" } })).body
    const before = sim.state.taxonomy.terms.size
    const deleted = await call<Json>(sim, `/products/attributes/${attr["id"]}?force=true`, { method: "DELETE" })
    expect(deleted.body).toMatchObject({ id: attr["id"], name: "Pattern" })
    expect((await call(sim, `/products/attributes/${attr["id"]}`)).status).toBe(404)
    expect((await call(sim, `/products/attributes/${attr["id"]}/terms`)).status).toBe(404)
    expect((await call(sim, `/products/attributes/${attr["id"]}/terms/${term["id"]}`)).status).toBe(404)
    expect(sim.state.taxonomy.terms.has(term["id"])).toBe(false)
    expect(sim.state.taxonomy.terms.size).toBe(before - 1)
  })

  it("answers an attribute batch with create, update and delete lists of attributes", async () => {
    const existing = (await call<Json>(sim, "/products/attributes", { method: "POST", json: { name: "Finish" } })).body
    const doomed = (await call<Json>(sim, "/products/attributes", { method: "POST", json: { name: "Doomed" } })).body
    const res = await call<Json>(sim, "/products/attributes/batch", { method: "POST", json: { create: [{ name: "Scent" }], update: [{ id: existing["id"], order_by: "name" }], delete: [doomed["id"]] } })
    expect(res.status).toBe(200)
    expect(res.body["create"]).toMatchObject([{ name: "Scent", slug: "pa_scent" }])
    expect(res.body["update"]).toMatchObject([{ id: existing["id"], order_by: "name" }])
    expect(res.body["delete"]).toMatchObject([{ id: doomed["id"], name: "Doomed" }])
  })

  it("nests categories; deleting one moves its children up and its products to the default category", async () => {
    const parent = (await call<Json>(sim, "/products/categories", { method: "POST", json: { name: "Kitchen", description: "<p>Cook</p>", display: "subcategories" } })).body
    const child = (await call<Json>(sim, "/products/categories", { method: "POST", json: { name: "Knives", parent: parent["id"] } })).body
    expect(child["_links"]["up"][0]["href"]).toBe(`${sim.url}/products/categories/${parent["id"]}`)
    expect((await call(sim, "/products/categories", { method: "POST", json: { name: "Knives", parent: parent["id"] } })).status).toBe(400)
    const product = (await call<Json>(sim, "/products", { method: "POST", json: { name: "Chef Knife", categories: [{ id: parent["id"] }] } })).body
    expect((await call<Json[]>(sim, `/products/categories?parent=${parent["id"]}`)).body.map((c) => c["id"])).toEqual([child["id"]])
    expect((await call<Json>(sim, `/products/categories/${parent["id"]}`)).body["count"]).toBe(1)
    await call(sim, `/products/categories/${parent["id"]}?force=true`, { method: "DELETE" })
    expect((await call<Json>(sim, `/products/categories/${child["id"]}`)).body["parent"]).toBe(0)
    expect((await call<Json>(sim, `/products/${product["id"]}`)).body["categories"].map((c: Json) => c["id"])).toEqual([15])
    expect((await call(sim, "/products/categories/15?force=true", { method: "DELETE" })).status).toBe(500)
  })

  it("manages shipping classes and takes a deleted one off its products", async () => {
    const cls = (await call<Json>(sim, "/products/shipping_classes", { method: "POST", json: { name: "Fragile", description: "Handle with care" } })).body
    expect(cls).toMatchObject({ name: "Fragile", slug: "fragile", description: "Handle with care", count: 0 })
    const product = (await call<Json>(sim, "/products", { method: "POST", json: { name: "Vase", shipping_class: "fragile" } })).body
    expect(product).toMatchObject({ shipping_class: "fragile", shipping_class_id: cls["id"] })
    expect((await call<Json>(sim, `/products/shipping_classes/${cls["id"]}`)).body["count"]).toBe(1)
    await call(sim, `/products/shipping_classes/${cls["id"]}?force=true`, { method: "DELETE" })
    expect((await call<Json>(sim, `/products/${product["id"]}`)).body).toMatchObject({ shipping_class: "", shipping_class_id: 0 })
  })
})

describe("store simulator: taxes", () => {
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await emptyShop({ clock: manualClock(at("2025-08-01T12:00:00Z")) })
  })
  afterAll(() => sim.close())

  it("stores postcodes and cities (5.3) and fills the deprecated single fields", async () => {
    const res = await call<Json>(sim, "/taxes", { method: "POST", json: { country: "us", state: "ny", postcodes: ["10001", "10002"], cities: ["new york", "Brooklyn"], rate: "8.875", name: "NYC", shipping: false } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ country: "US", state: "NY", postcodes: ["10001", "10002"], cities: ["NEW YORK", "BROOKLYN"], rate: "8.8750", name: "NYC", priority: 1, compound: false, shipping: false, class: "standard" })
    expect(res.body["postcode"]).toBe("10002")
    expect(res.body["city"]).toBe("BROOKLYN")
    const single = await call<Json>(sim, "/taxes", { method: "POST", json: { country: "CA", postcode: "90210", city: "Beverly Hills", rate: "9.5" } })
    expect(single.body).toMatchObject({ postcode: "90210", postcodes: ["90210"], city: "BEVERLY HILLS", cities: ["BEVERLY HILLS"] })
    const both = await call<Json>(sim, "/taxes", { method: "POST", json: { country: "GB", postcode: "SW1A", postcodes: ["EC1A"], rate: "20" } })
    expect(both.body["postcodes"]).toEqual(["EC1A"])
    const updated = await call<Json>(sim, `/taxes/${single.body["id"]}`, { method: "PUT", json: { cities: [] } })
    expect(updated.body).toMatchObject({ cities: [], city: "" })
  })

  it("lists rates ordered by order (asc) and filters by class", async () => {
    const rates = (await call<Json[]>(sim, "/taxes?per_page=100")).body
    const orders = rates.map((r) => r["order"] as number)
    expect(orders).toEqual([...orders].sort((a, b) => a - b))
    const byId = (await call<Json[]>(sim, "/taxes?per_page=100&orderby=id&order=desc")).body.map((r) => r["id"] as number)
    expect(byId).toEqual([...byId].sort((a, b) => b - a))
    await call(sim, "/taxes", { method: "POST", json: { country: "DE", rate: "7", class: "reduced-rate" } })
    const reduced = (await call<Json[]>(sim, "/taxes?class=reduced-rate")).body
    expect(reduced.length).toBeGreaterThan(0)
    expect(reduced.every((r) => r["class"] === "reduced-rate")).toBe(true)
    expect((await call(sim, "/taxes", { method: "POST", json: { country: "DE", rate: "7", class: "no-such-class" } })).status).toBe(400)
  })

  it("creates tax classes and deleting one deletes all its rates", async () => {
    const cls = await call<Json>(sim, "/taxes/classes", { method: "POST", json: { name: "Books rate" } })
    expect(cls.status).toBe(201)
    expect(cls.body).toMatchObject({ slug: "books-rate", name: "Books rate" })
    expect((await call(sim, "/taxes/classes", { method: "POST", json: {} })).status).toBe(400)
    expect((await call<Json[]>(sim, "/taxes/classes")).body.map((c) => c["slug"])).toEqual(["standard", "reduced-rate", "zero-rate", "books-rate"])
    const a = (await call<Json>(sim, "/taxes", { method: "POST", json: { country: "FR", rate: "5.5", class: "books-rate" } })).body
    const b = (await call<Json>(sim, "/taxes", { method: "POST", json: { country: "DE", rate: "7", class: "books-rate" } })).body
    const other = (await call<Json>(sim, "/taxes", { method: "POST", json: { country: "NL", rate: "9", class: "reduced-rate" } })).body
    expect((await call(sim, "/taxes/classes/books-rate", { method: "DELETE" })).status).toBe(501)
    const deleted = await call<Json>(sim, "/taxes/classes/books-rate?force=true", { method: "DELETE" })
    expect(deleted.body).toMatchObject({ slug: "books-rate", name: "Books rate" })
    expect((await call(sim, `/taxes/${a["id"]}`)).status).toBe(404)
    expect((await call(sim, `/taxes/${b["id"]}`)).status).toBe(404)
    expect((await call(sim, `/taxes/${other["id"]}`)).status).toBe(200)
    expect((await call<Json[]>(sim, "/taxes?class=books-rate")).body).toEqual([])
    expect((await call(sim, "/taxes/classes/standard?force=true", { method: "DELETE" })).status).toBe(404)
  })
})
