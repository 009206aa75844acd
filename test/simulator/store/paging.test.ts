import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, startStoreSimulator } from "../../../src/simulator/store/index.ts"
import { call } from "./support.ts"

const linkRels = (link: string | null): Record<string, URL> =>
  Object.fromEntries(
    (link ?? "")
      .split(/,\s*(?=<)/)
      .filter((p) => p !== "")
      .map((part) => {
        const m = /^<([^>]+)>;\s*rel="([^"]+)"$/.exec(part.trim())
        if (m === null) throw new Error(`bad Link part ${part}`)
        return [m[2]!, new URL(m[1]!)]
      }),
  )

describe("store simulator: list paging", () => {
  let sim: StoreSimulator
  let total: number
  beforeAll(async () => {
    sim = await startStoreSimulator({ data: { seed: 2, orders: 95, bursts: 0 } })
    total = sim.state.orders.filter((o) => o.status !== "trash").length
  })
  afterAll(() => sim.close())

  it("defaults to 10 per page and reports totals in X-WP-Total / X-WP-TotalPages", async () => {
    const res = await call<unknown[]>(sim, "/orders")
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(10)
    expect(res.headers.get("x-wp-total")).toBe(String(total))
    expect(res.headers.get("x-wp-totalpages")).toBe(String(Math.ceil(total / 10)))
  })

  it.each(["0", "101", "ten", "-1"])("refuses per_page=%s with 400 rest_invalid_param", async (value) => {
    const res = await call(sim, `/orders?per_page=${value}`)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: "rest_invalid_param", message: "Invalid parameter(s): per_page", data: { status: 400 } })
  })

  it("accepts per_page 1 and 100", async () => {
    expect((await call<unknown[]>(sim, "/orders?per_page=1")).body).toHaveLength(1)
    expect((await call<unknown[]>(sim, "/orders?per_page=100")).body).toHaveLength(Math.min(100, total))
  })

  it("links only next on the first page, next and prev in the middle, only prev on the last", async () => {
    const first = linkRels((await call(sim, "/orders?per_page=20&status=any")).headers.get("link"))
    expect(Object.keys(first)).toEqual(["next"])
    expect(first["next"]!.searchParams.get("page")).toBe("2")
    expect(first["next"]!.searchParams.get("per_page")).toBe("20")
    expect(first["next"]!.searchParams.get("status")).toBe("any")
    expect(first["next"]!.pathname).toBe("/wp-json/wc/v3/orders")

    const middle = linkRels((await call(sim, "/orders?per_page=20&page=2")).headers.get("link"))
    expect(Object.keys(middle).sort()).toEqual(["next", "prev"])
    expect(middle["prev"]!.searchParams.get("page")).toBe("1")
    expect(middle["next"]!.searchParams.get("page")).toBe("3")

    const pages = Math.ceil(total / 20)
    const last = await call<unknown[]>(sim, `/orders?per_page=20&page=${pages}`)
    expect(Object.keys(linkRels(last.headers.get("link")))).toEqual(["prev"])
    expect(last.body).toHaveLength(total - (pages - 1) * 20)
  })

  it("answers a page past the end with 200 [] and a prev link to the last page", async () => {
    const pages = Math.ceil(total / 20)
    const res = await call<unknown[]>(sim, `/orders?per_page=20&page=${pages + 3}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual([])
    expect(res.headers.get("x-wp-total")).toBe(String(total))
    expect(linkRels(res.headers.get("link"))["prev"]!.searchParams.get("page")).toBe(String(pages))
  })

  it("lets offset override page while the totals ignore it", async () => {
    const all = (await call<Array<{ id: number }>>(sim, "/orders?per_page=100&orderby=id&order=asc")).body.map((o) => o.id)
    const res = await call<Array<{ id: number }>>(sim, "/orders?per_page=5&page=4&offset=7&orderby=id&order=asc")
    expect(res.body.map((o) => o.id)).toEqual(all.slice(7, 12))
    expect(res.headers.get("x-wp-total")).toBe(String(total))
    expect(res.headers.get("x-wp-totalpages")).toBe(String(Math.ceil(total / 5)))
  })

  it("walks every order exactly once by following next links", async () => {
    const seen: number[] = []
    let url: string | undefined = `${sim.url}/orders?per_page=13&orderby=id&order=desc`
    while (url !== undefined) {
      const res = await fetch(url, { headers: { authorization: `Basic ${Buffer.from("ck_demo:cs_demo").toString("base64")}` } })
      seen.push(...((await res.json()) as Array<{ id: number }>).map((o) => o.id))
      url = linkRels(res.headers.get("link"))["next"]?.toString()
    }
    expect(seen).toHaveLength(total)
    expect(seen).toEqual([...seen].sort((a, b) => b - a))
  })

  it("validates the other list arguments", async () => {
    for (const [query, param] of [
      ["page=0", "page"],
      ["order=up", "order"],
      ["orderby=price", "orderby"],
      ["status=shipped", "status"],
      ["modified_after=2024-03-01", "modified_after"],
      ["after=yesterday", "after"],
      ["include=1,x", "include"],
      ["dates_are_gmt=maybe", "dates_are_gmt"],
    ]) {
      const res = await call(sim, `/orders?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.body, query).toMatchObject({ code: "rest_invalid_param", message: `Invalid parameter(s): ${param}` })
    }
    const both = await call(sim, "/orders?per_page=500&order=sideways")
    expect(both.body).toMatchObject({ message: "Invalid parameter(s): per_page, order" })
  })

  it("keeps only the requested fields with _fields (and _links only when asked)", async () => {
    const res = await call<Array<Record<string, unknown>>>(sim, "/orders?per_page=3&_fields=id,date_modified_gmt,billing.email")
    for (const o of res.body) {
      expect(Object.keys(o).sort()).toEqual(["billing", "date_modified_gmt", "id"])
      expect(Object.keys(o["billing"] as object)).toEqual(["email"])
    }
    const withLinks = await call<Array<Record<string, unknown>>>(sim, "/orders?per_page=1&_fields=id,_links")
    expect(Object.keys(withLinks.body[0]!).sort()).toEqual(["_links", "id"])
  })

  it("pages customers (default order asc by name) and products the same way", async () => {
    const customers = await call<Array<{ username: string }>>(sim, "/customers?per_page=100")
    const names = customers.body.map((c) => c.username)
    expect(names).toEqual([...names].sort())
    expect(customers.headers.get("x-wp-total")).toBe(String(sim.state.customers.length))
    const products = await call<unknown[]>(sim, "/products?per_page=5&page=2")
    expect(products.headers.get("x-wp-total")).toBe(String(sim.state.products.length))
    expect(products.body).toHaveLength(5)
  })
})
