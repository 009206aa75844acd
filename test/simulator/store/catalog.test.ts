// Products and variations (seed part 1 §4.2-4.3): CRUD, the list parameters with their precedence rules,
// duplicate, variations and their batch.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock } from "../../../src/simulator/store/index.ts"
import { at, call, emptyShop } from "./support.ts"

type Json = Record<string, any>

const ids = (rows: Json[]) => rows.map((r) => r["id"] as number).sort((a, b) => a - b)

describe("store simulator: products", () => {
  const clock = manualClock(at("2025-06-01T12:00:00Z"))
  let sim: StoreSimulator
  const made: Record<string, Json> = {}
  const create = async (key: string, body: Json) => {
    const res = await call<Json>(sim, "/products", { method: "POST", json: body })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    made[key] = res.body
    return res.body
  }

  beforeAll(async () => {
    sim = await emptyShop({ clock })
    await create("mug", { name: "Stoneware Mug", sku: "MUG-RED", regular_price: "12.00", description: "A red mug for coffee", short_description: "Red", categories: [{ id: 18 }], tags: [{ id: 30 }] })
    await create("draft", { name: "Draft Lamp", status: "draft", sku: "LAMP-1", regular_price: "40", virtual: true })
    await create("private", { name: "Private Print", status: "private", regular_price: "25", global_unique_id: "4006381333931", downloadable: true })
    await create("external", { name: "Partner Kettle", type: "external", external_url: "https://partner.example/kettle", button_text: "Buy at partner", regular_price: "60" })
    await create("grouped", { name: "Breakfast Set", type: "grouped", grouped_products: [made["mug"]!["id"]] })
    await create("sale", { name: "Sale Scarf", regular_price: "30", sale_price: "20", manage_stock: true, stock_quantity: 0, shipping_class: "bulky" })
  })
  afterAll(() => sim.close())

  const list = async (query: string) => (await call<Json[]>(sim, `/products?per_page=100&${query}`)).body

  it("creates products with defaults and reads them back", async () => {
    const mug = made["mug"]!
    expect(mug).toMatchObject({ type: "simple", status: "publish", featured: false, catalog_visibility: "visible", slug: "stoneware-mug", tax_status: "taxable", stock_status: "instock", backorders: "no", reviews_allowed: true, download_limit: -1, download_expiry: -1 })
    expect(mug["categories"]).toEqual([{ id: 18, name: "Home", slug: "home" }])
    expect(mug["tags"]).toMatchObject([{ id: 30 }])
    expect((await call<Json>(sim, `/products/${mug["id"]}`)).body).toEqual(mug)
    expect(made["draft"]!["slug"]).toBe("")
    expect(made["external"]).toMatchObject({ type: "external", external_url: "https://partner.example/kettle", button_text: "Buy at partner" })
    expect(made["sale"]).toMatchObject({ on_sale: true, price: "20", stock_status: "outofstock", shipping_class: "bulky" })
    expect(made["grouped"]!["grouped_products"]).toEqual([mug["id"]])
    const noName = await call<Json>(sim, "/products", { method: "POST", json: {} })
    expect(noName.body["name"]).toBe("Product")
    expect(noName.body["categories"]).toEqual([{ id: 15, name: "Uncategorized", slug: "uncategorized" }])
  })

  it("refuses a duplicated SKU", async () => {
    const res = await call<Json>(sim, "/products", { method: "POST", json: { name: "Copycat", sku: "MUG-RED" } })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: "product_invalid_sku" })
  })

  it("searches the default fields, or exactly the search_fields given (all tokens must be found)", async () => {
    expect(ids(await list("search=red%20coffee"))).toEqual([made["mug"]!["id"]])
    expect(await list("search=MUG-RED")).toEqual([])
    expect(ids(await list("search=MUG-RED&search_fields=sku"))).toEqual([made["mug"]!["id"]])
    expect(ids(await list("search=4006381333931&search_fields[]=global_unique_id&status=any"))).toEqual([made["private"]!["id"]])
    expect(await list("search=mug%20lamp&search_fields=name")).toEqual([])
    expect(await list("search=coffee&search_fields=name,sku")).toEqual([])
  })

  it("resolves statuses: exclude_status over include_status over status", async () => {
    const having = (...statuses: string[]) => ids(sim.state.products.filter((p) => statuses.includes(p.status)).map((p) => ({ id: p.id })))
    expect(having("draft")).toContain(made["draft"]!["id"])
    expect(having("private")).toEqual([made["private"]!["id"]])
    expect(ids(await list("status=draft"))).toEqual(having("draft"))
    expect(ids(await list("status=draft&include_status=private"))).toEqual(having("private"))
    expect(ids(await list("include_status=draft,private&exclude_status=private"))).toEqual(having("draft"))
    expect(ids(await list("status=draft&exclude_status=draft"))).toEqual([])
    expect(ids(await list("include_status=any&exclude_status=publish"))).toEqual(ids(sim.state.products.filter((p) => p.status !== "publish").map((p) => ({ id: p.id }))))
    const bad = await call(sim, "/products?include_status=sold")
    expect(bad.status).toBe(400)
  })

  it("resolves types: exclude_types over include_types over type", async () => {
    expect(ids(await list("type=external"))).toEqual([made["external"]!["id"]])
    expect(ids(await list("type=external&include_types=grouped"))).toEqual([made["grouped"]!["id"]])
    expect(ids(await list("include_types=grouped,external&exclude_types=grouped"))).toEqual([made["external"]!["id"]])
    expect((await list("exclude_types=simple,variable")).map((p) => p["type"]).sort()).toEqual(["external", "grouped"])
  })

  it("filters by price range, sale, stock status, virtual, downloadable, sku, category, tag and shipping class", async () => {
    for (const p of await list("min_price=20&max_price=30")) {
      expect(Number(p["price"])).toBeGreaterThanOrEqual(20)
      expect(Number(p["price"])).toBeLessThanOrEqual(30)
    }
    expect((await list("min_price=20&max_price=30")).map((p) => p["id"])).toContain(made["sale"]!["id"])
    expect((await list("on_sale=true")).map((p) => p["id"])).toContain(made["sale"]!["id"])
    expect((await list("on_sale=true")).every((p) => p["on_sale"] === true)).toBe(true)
    expect((await list("stock_status=outofstock")).every((p) => p["stock_status"] === "outofstock")).toBe(true)
    expect(ids(await list("virtual=true&status=any"))).toEqual([made["draft"]!["id"]])
    expect(ids(await list("downloadable=true&status=any"))).toEqual([made["private"]!["id"]])
    expect(ids(await list("sku=MUG-RED"))).toEqual([made["mug"]!["id"]])
    expect((await list("category=18")).every((p) => p["categories"].some((c: Json) => c["id"] === 18))).toBe(true)
    expect(ids(await list("tag=30"))).toEqual([made["mug"]!["id"]])
    const bulky = made["sale"]!["shipping_class_id"]
    expect(ids(await list(`shipping_class=${bulky}`))).toEqual([made["sale"]!["id"]])
  })

  it("filters by a global attribute term (attribute needs attribute_term)", async () => {
    const terms = (await call<Json[]>(sim, "/products/attributes/2/terms?per_page=100")).body
    const blue = terms.find((t) => t["name"] === "Blue")!
    const withBlue = sim.state.products.filter((p) => p.status === "publish" && p.attributes.some((a) => a.id === 2 && a.options.includes("Blue"))).map((p) => p.id)
    expect(ids(await list(`attribute=pa_color&attribute_term=${blue["id"]}`))).toEqual(withBlue.sort((a, b) => a - b))
    expect((await list("attribute=pa_color")).length).toBe((await list("")).length)
  })

  it("updates with PUT (moving date_modified), ignores unknown term ids, and answers image_size", async () => {
    clock.advance(60_000)
    const mug = made["mug"]!["id"]
    const res = await call<Json>(sim, `/products/${mug}`, {
      method: "PUT",
      json: { sale_price: "9.50", categories: [{ id: 17 }, { id: 424242 }], images: [{ src: "http://img.example/mug.jpg", alt: "Mug" }], dimensions: { length: "10" } },
    })
    expect(Number(res.body["sale_price"])).toBe(9.5)
    expect(res.body).toMatchObject({ on_sale: true, date_modified_gmt: "2025-06-01T12:01:00", dimensions: { length: "10", width: "", height: "" } })
    expect(res.body["categories"].map((c: Json) => c["id"])).toEqual([17])
    expect(res.body["images"][0]).toMatchObject({ src: "http://img.example/mug.jpg", alt: "Mug" })
    expect((await call<Json>(sim, `/products/${mug}?image_size=thumbnail`)).body["images"][0]["src"]).toBe("http://img.example/mug-150x150.jpg")
    expect((await call<Json>(sim, `/products/${mug}?image_size=no_such_size`)).body["images"][0]["src"]).toBe("http://img.example/mug.jpg")
  })

  it("applies a write entirely or not at all", async () => {
    const mug = made["mug"]!["id"]
    const before = (await call(sim, `/products/${mug}`)).text
    const res = await call<Json>(sim, `/products/${mug}`, { method: "PUT", json: { name: "Renamed", sku: "NEW-SKU", images: [{ id: 999999 }] } })
    expect(res.status).toBe(400)
    expect((await call(sim, `/products/${mug}`)).text).toBe(before)
  })

  it("puts a product on sale only inside its sale window", async () => {
    const past = (await call<Json>(sim, "/products", { method: "POST", json: { name: "Past sale", regular_price: "10", sale_price: "5", date_on_sale_to_gmt: "2025-05-01T00:00:00" } })).body
    expect(past).toMatchObject({ on_sale: false, date_on_sale_to_gmt: "2025-05-01T00:00:00" })
    expect(Number(past["price"])).toBe(10)
    const now = (await call<Json>(sim, "/products", { method: "POST", json: { name: "Current sale", regular_price: "10", sale_price: "5", date_on_sale_from: "2025-05-01", date_on_sale_to: "2025-12-31" } })).body
    expect(now).toMatchObject({ on_sale: true })
    expect(Number(now["price"])).toBe(5)
  })

  it("duplicates a product as a draft copy with its variations", async () => {
    const source = sim.state.products.find((p) => p.type === "variable")!
    const res = await call<Json>(sim, `/products/${source.id}/duplicate`, { method: "POST" })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ name: `${source.name} (Copy)`, status: "draft", sku: `${source.sku}-1`, total_sales: 0, rating_count: 0 })
    expect(res.body["id"]).not.toBe(source.id)
    expect(res.body["variations"]).toHaveLength(source.variationIds.length)
    expect(res.body["variations"].some((id: number) => source.variationIds.includes(id))).toBe(false)
    const again = await call<Json>(sim, `/products/${source.id}/duplicate`, { method: "POST" })
    expect(again.body["sku"]).toBe(`${source.sku}-2`)
    expect((await call(sim, "/products/999999/duplicate", { method: "POST" })).status).toBe(404)
  })
})

describe("store simulator: variations", () => {
  const clock = manualClock(at("2025-06-01T12:00:00Z"))
  let sim: StoreSimulator
  let product: Json
  beforeAll(async () => {
    sim = await emptyShop({ clock })
    product = (
      await call<Json>(sim, "/products", {
        method: "POST",
        json: {
          name: "Rain Jacket",
          type: "variable",
          attributes: [
            { id: 1, variation: true, visible: true, options: ["M", "L"] },
            { name: "Fit", variation: true, options: ["Regular", "Slim"] },
          ],
          default_attributes: [{ id: 1, option: "M" }],
        },
      })
    ).body
  })
  afterAll(() => sim.close())

  it("creates a variable product whose attributes list the variation options", () => {
    expect(product["type"]).toBe("variable")
    expect(product["attributes"]).toMatchObject([
      { id: 1, name: "Size", slug: "pa_size", variation: true, options: ["M", "L"] },
      { id: 0, name: "Fit", variation: true, options: ["Regular", "Slim"] },
    ])
    expect(product["default_attributes"]).toEqual([{ id: 1, name: "Size", option: "M" }])
  })

  it("creates, reads, lists and updates variations; the parent shows them and moves its date_modified", async () => {
    clock.advance(60_000)
    const created = await call<Json>(sim, `/products/${product["id"]}/variations`, {
      method: "POST",
      json: { regular_price: "80", sku: "JKT-M-R", manage_stock: true, stock_quantity: 4, attributes: [{ id: 1, option: "M" }, { name: "Fit", option: "Regular" }] },
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ price: "80", sku: "JKT-M-R", manage_stock: true, stock_quantity: 4, stock_status: "instock", status: "publish" })
    expect(created.body["attributes"].map((a: Json) => a["option"])).toEqual(["M", "Regular"])
    const id = created.body["id"]
    expect((await call<Json>(sim, `/products/${product["id"]}/variations/${id}`)).body).toEqual(created.body)
    const parent = (await call<Json>(sim, `/products/${product["id"]}`)).body
    expect(parent["variations"]).toEqual([id])
    expect(parent["date_modified_gmt"]).toBe("2025-06-01T12:01:00")
    const updated = await call<Json>(sim, `/products/${product["id"]}/variations/${id}`, { method: "PUT", json: { sale_price: "70", status: "private" } })
    expect(updated.body).toMatchObject({ price: "70", on_sale: true, status: "private" })
    expect((await call<Json[]>(sim, `/products/${product["id"]}/variations?status=private`)).body.map((v) => v["id"])).toEqual([id])
    expect((await call<Json[]>(sim, `/products/${product["id"]}/variations?sku=JKT-M-R`)).body.map((v) => v["id"])).toEqual([id])
    expect((await call(sim, `/products/${product["id"]}/variations/${id}`, { method: "PUT", json: { sku: sim.state.products[0]!.sku } })).status).toBe(400)
  })

  it("refuses variations of a product that is not variable", async () => {
    const simple = sim.state.products.find((p) => p.type === "simple")!
    expect((await call(sim, `/products/${simple.id}/variations`, { method: "POST", json: { regular_price: "1" } })).status).toBe(400)
  })

  it("batches variation writes and deletes them for good", async () => {
    const res = await call<Json>(sim, `/products/${product["id"]}/variations/batch`, {
      method: "POST",
      json: { create: [{ regular_price: "81", attributes: [{ id: 1, option: "L" }, { name: "Fit", option: "Slim" }] }, { regular_price: "82" }] },
    })
    expect(res.body["create"]).toHaveLength(2)
    const [a, b] = res.body["create"] as Json[]
    const second = await call<Json>(sim, `/products/${product["id"]}/variations/batch`, { method: "POST", json: { update: [{ id: a!["id"], regular_price: "90" }], delete: [b!["id"]] } })
    expect(second.body["update"][0]).toMatchObject({ id: a!["id"], regular_price: "90" })
    expect(second.body["delete"][0]).toMatchObject({ id: b!["id"] })
    expect((await call(sim, `/products/${product["id"]}/variations/${b!["id"]}`)).status).toBe(404)
    expect((await call<Json>(sim, `/products/${product["id"]}`)).body["variations"]).not.toContain(b!["id"])
  })
})
