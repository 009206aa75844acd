import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, manualClock, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { at, call } from "./support.ts"

interface Customer {
  id: number
  email: string
  first_name: string
  username: string
  role: string
  date_created_gmt: string
  date_modified_gmt: string
  billing: Record<string, string>
  shipping: Record<string, string>
  is_paying_customer: boolean
  _links: Record<string, Array<{ href: string }>>
}

describe("store simulator: customers", () => {
  const clock = manualClock(at("2025-04-01T10:00:00Z"))
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock, data: { seed: 6, orders: 200, customers: 30 } })
  })
  afterAll(() => sim.close())

  it("ignores modified_after (customers have no modified filter)", async () => {
    const all = await call<Customer[]>(sim, "/customers?per_page=100")
    const filtered = await call<Customer[]>(sim, "/customers?per_page=100&modified_after=2999-01-01T00:00:00")
    expect(filtered.body.map((c) => c.id)).toEqual(all.body.map((c) => c.id))
    expect(all.body).toHaveLength(30)
  })

  it("orders by id, registered_date or name, ascending by default; filters by email", async () => {
    const ids = (await call<Customer[]>(sim, "/customers?per_page=100&orderby=id")).body.map((c) => c.id)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    const desc = (await call<Customer[]>(sim, "/customers?per_page=100&orderby=registered_date&order=desc")).body.map((c) => c.date_created_gmt)
    expect(desc).toEqual([...desc].sort().reverse())
    const one = sim.state.customers[3]!
    expect((await call<Customer[]>(sim, `/customers?email=${encodeURIComponent(one.email.toUpperCase())}`)).body.map((c) => c.id)).toEqual([one.id])
  })

  it("creates with POST (email mandatory and unique) and updates with PUT, bumping date_modified", async () => {
    const missing = await call(sim, "/customers", { method: "POST", json: { first_name: "No" } })
    expect(missing.status).toBe(400)
    expect(missing.body).toMatchObject({ code: "rest_missing_callback_param" })
    const taken = await call(sim, "/customers", { method: "POST", json: { email: sim.state.customers[0]!.email } })
    expect(taken.status).toBe(400)
    expect(taken.body).toMatchObject({ code: "registration-error-email-exists" })

    const created = await call<Customer>(sim, "/customers", { method: "POST", json: { email: "grace@example.com", first_name: "Grace", billing: { city: "Boston", email: "grace@example.com" } } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ email: "grace@example.com", first_name: "Grace", username: "grace", role: "customer", is_paying_customer: false, date_created_gmt: "2025-04-01T10:00:00" })
    expect(created.body.billing).toMatchObject({ city: "Boston", email: "grace@example.com", country: "" })
    expect(created.body._links["self"]![0]!.href).toBe(`${sim.url}/customers/${created.body.id}`)

    clock.set(at("2025-04-02T10:00:00Z"))
    const updated = await call<Customer>(sim, `/customers/${created.body.id}`, { method: "PUT", json: { shipping: { city: "Salem" } } })
    expect(updated.body).toMatchObject({ date_modified_gmt: "2025-04-02T10:00:00", date_created_gmt: "2025-04-01T10:00:00" })
    expect(updated.body.shipping["city"]).toBe("Salem")
    expect(updated.body.billing["city"]).toBe("Boston")
    expect((await call<Customer[]>(sim, "/customers?per_page=100")).headers.get("x-wp-total")).toBe("31")
  })

  it("marks customers with paid orders as paying", async () => {
    const paying = sim.state.customers.filter((c) => sim.state.orders.some((o) => o.customerId === c.id && o.paid > 0))
    for (const c of paying.slice(0, 5)) expect((await call<Customer>(sim, `/customers/${c.id}`)).body.is_paying_customer).toBe(true)
  })
})

describe("store simulator: products and variations", () => {
  const clock = manualClock(at("2025-04-01T10:00:00Z"))
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await startStoreSimulator({ clock, data: { seed: 6, orders: 50, products: 20 } })
  })
  afterAll(() => sim.close())

  it("updates a product with PUT and finds it with modified_after", async () => {
    const p = sim.state.products.find((x) => x.type === "simple")!
    clock.set(at("2025-04-05T00:00:00Z"))
    const res = await call<{ id: number; regular_price: string; price: string; date_modified_gmt: string; name: string }>(sim, `/products/${p.id}`, { method: "PUT", json: { regular_price: "12.50", sale_price: "", name: "Renamed" } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ regular_price: "12.5", price: "12.5", name: "Renamed", date_modified_gmt: "2025-04-05T00:00:00" })
    const changed = await call<Array<{ id: number }>>(sim, "/products?modified_after=2025-04-04T23:59:59&dates_are_gmt=true")
    expect(changed.body.map((x) => x.id)).toEqual([p.id])
  })

  it("lists a variable product's variations and gets one", async () => {
    const p = sim.state.products.find((x) => x.type === "variable")!
    const list = await call<Array<{ id: number; parent_id: number; attributes: unknown[] }>>(sim, `/products/${p.id}/variations?per_page=100`)
    expect(list.body.map((v) => v.id).sort()).toEqual([...p.variationIds].sort())
    expect(list.headers.get("x-wp-total")).toBe(String(p.variationIds.length))
    const one = await call<{ id: number; parent_id: number }>(sim, `/products/${p.id}/variations/${p.variationIds[0]}`)
    expect(one.body).toMatchObject({ id: p.variationIds[0], parent_id: p.id })
    const wrongParent = await call(sim, `/products/${p.id + 100000}/variations/${p.variationIds[0]}`)
    expect(wrongParent.status).toBe(404)
    const product = await call<{ variations: number[]; type: string }>(sim, `/products/${p.id}`)
    expect(product.body).toMatchObject({ type: "variable", variations: p.variationIds })
  })

  it("filters products by type and status", async () => {
    const variable = await call<Array<{ type: string }>>(sim, "/products?type=variable&per_page=100")
    expect(variable.body.every((x) => x.type === "variable")).toBe(true)
    expect(variable.body).toHaveLength(sim.state.products.filter((x) => x.type === "variable").length)
    const drafts = await call<Array<{ status: string }>>(sim, "/products?status=draft&per_page=100")
    expect(drafts.body).toHaveLength(sim.state.products.filter((x) => x.status === "draft").length)
  })
})
