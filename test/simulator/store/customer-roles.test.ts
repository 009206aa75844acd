import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generate, type StoreSimulator, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { call } from "./support.ts"

describe("customers of every role", () => {
  let sim: StoreSimulator
  beforeAll(async () => {
    sim = await startStoreSimulator({ data: generate({ seed: 5, orders: 0, products: 6, customers: 12, roles: { subscriber: 2, shop_manager: 1 } }) })
  })
  afterAll(() => sim.close())

  const ids = async (query: string) => (await call<Array<{ id: number }>>(sim, `/customers?per_page=100&orderby=id&${query}`)).body.map((c) => c.id)
  const withRole = (role: string) => sim.state.customers.filter((c) => c.role === role).map((c) => c.id).sort((a, b) => a - b)

  it("generates the roles asked for, and the default list holds role customer only", async () => {
    expect(withRole("subscriber")).toHaveLength(2)
    expect(withRole("shop_manager")).toHaveLength(1)
    expect(await ids("")).toEqual(withRole("customer"))
    expect(await ids("role=subscriber")).toEqual(withRole("subscriber"))
    expect(await ids("role=all")).toEqual(sim.state.customers.map((c) => c.id).sort((a, b) => a - b))
  })

  it("a role the shop registers is a value of the role filter; an unknown one is refused", async () => {
    expect((await call(sim, "/customers?role=wholesale_buyer")).status).toBe(400)
    const [first] = withRole("customer")
    sim.state.setCustomerRole(first!, "wholesale_buyer")
    expect(await ids("role=wholesale_buyer")).toEqual([first])
    expect(await ids("")).not.toContain(first)
  })
})
