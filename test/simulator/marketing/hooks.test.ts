import { afterEach, describe, expect, it } from "vitest"
import type { MarketingSimulator, MarketingSimulatorOptions } from "../../../src/simulator/marketing/index.ts"
import { startWithClient, type apiClient } from "./support.ts"

let sim: MarketingSimulator
let call: ReturnType<typeof apiClient>
afterEach(async () => {
  await sim?.close()
})

const start = async (options: MarketingSimulatorOptions = {}) => {
  const started = await startWithClient(options)
  sim = started.sim
  call = started.call
}

const hook = (overrides: Record<string, unknown> = {}) => ({
  name: "Contact updates",
  webhookUrl: "https://receiver.example/hook",
  triggers: ["mautic.lead_post_save_update"],
  ...overrides,
})

const create = async (overrides: Record<string, unknown> = {}) => {
  const res = await call("POST", "/hooks/new", hook(overrides))
  expect(res.status).toBe(201)
  return res.body.hook
}

describe("single webhooks", () => {
  it("creates with 201 and answers the hook with defaults and a generated secret", async () => {
    await start()
    const res = await call("POST", "/hooks/new", hook({ description: "d", eventsOrderbyDir: "desc" }))
    expect(res.status).toBe(201)
    expect(res.headers.get("location")).toBe(`${sim.baseUrl}/api/hooks/${res.body.hook.id}`)
    expect(res.body.hook).toMatchObject({
      id: 1,
      name: "Contact updates",
      description: "d",
      webhookUrl: "https://receiver.example/hook",
      eventsOrderbyDir: "desc",
      isPublished: true,
      category: null,
      triggers: ["mautic.lead_post_save_update"],
      createdByUser: "mk_demo",
      dateModified: null,
    })
    expect(res.body.hook.secret).toMatch(/.{16,}/)
    expect(res.body.hook.dateAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/)
    expect((await call("GET", "/hooks/1")).body).toEqual(res.body)
  })

  it("requires name, webhookUrl and triggers on creation, with details per field", async () => {
    await start()
    const res = await call("POST", "/hooks/new", { description: "only" })
    expect(res.status).toBe(400)
    expect(res.body.errors[0].code).toBe(400)
    expect(Object.keys(res.body.errors[0].details).sort()).toEqual(["name", "triggers", "webhookUrl"])
    const badUrl = await call("POST", "/hooks/new", hook({ webhookUrl: "not a url" }))
    expect(badUrl.status).toBe(400)
    expect(badUrl.body.errors[0].details.webhookUrl).toBeDefined()
    expect(sim.state.listHooks()).toEqual([])
  })

  it("keeps a given secret and assigns a category by integer id", async () => {
    await start()
    const category = sim.state.addCategory({ title: "Sync", color: "ff0000" })
    const created = await create({ secret: "s3", category: category.id })
    expect(created.secret).toBe("s3")
    expect(created.category).toMatchObject({ id: category.id, title: "Sync", alias: "sync", color: "ff0000" })
    const unknown = await call("POST", "/hooks/new", hook({ category: 99 }))
    expect(unknown.status).toBe(400)
    expect(unknown.body.errors[0].details.category).toBeDefined()
  })

  it("answers 404 'Item was not found.' for a missing id", async () => {
    await start()
    const res = await call("GET", "/hooks/42")
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ errors: [{ code: 404, message: "Item was not found.", details: [], type: null }] })
  })

  it("PUT replaces the whole webhook: fields left out are cleared", async () => {
    await start()
    const created = await create({ description: "old", eventsOrderbyDir: "asc", secret: "keep?" })
    const res = await call("PUT", `/hooks/${created.id}/edit`, {
      name: "Replaced",
      webhookUrl: "https://receiver.example/new",
      triggers: ["mautic.lead_post_delete", "mautic.form_on_submit"],
    })
    expect(res.status).toBe(200)
    expect(res.body.hook).toMatchObject({
      id: created.id,
      name: "Replaced",
      description: null,
      eventsOrderbyDir: null,
      webhookUrl: "https://receiver.example/new",
      triggers: ["mautic.lead_post_delete", "mautic.form_on_submit"],
      dateAdded: created.dateAdded,
    })
    expect(res.body.hook.secret).not.toBe("keep?")
    expect(res.body.hook.dateModified).not.toBeNull()
  })

  it("PUT on a missing id creates a webhook with 201", async () => {
    await start()
    const res = await call("PUT", "/hooks/77/edit", hook({ name: "From PUT" }))
    expect(res.status).toBe(201)
    expect(res.body.hook.name).toBe("From PUT")
    expect(sim.state.getHook(res.body.hook.id)?.name).toBe("From PUT")
  })

  it("PATCH changes only the supplied fields and answers 404 for a missing id", async () => {
    await start()
    const created = await create({ description: "keep me" })
    const res = await call("PATCH", `/hooks/${created.id}/edit`, { name: "Renamed", isPublished: false })
    expect(res.status).toBe(200)
    expect(res.body.hook).toMatchObject({
      name: "Renamed",
      isPublished: false,
      description: "keep me",
      webhookUrl: created.webhookUrl,
      secret: created.secret,
      triggers: created.triggers,
    })
    const missing = await call("PATCH", "/hooks/999/edit", { name: "x" })
    expect(missing.status).toBe(404)
    expect(missing.body.errors[0].message).toBe("Item was not found.")
    expect(sim.state.listHooks()).toHaveLength(1)
  })

  it("DELETE answers the deleted webhook; afterwards it is gone", async () => {
    await start()
    const created = await create()
    const res = await call("DELETE", `/hooks/${created.id}/delete`)
    expect(res.status).toBe(200)
    expect(res.body.hook).toMatchObject({ id: created.id, name: created.name })
    expect((await call("GET", `/hooks/${created.id}`)).status).toBe(404)
    expect((await call("DELETE", `/hooks/${created.id}/delete`)).status).toBe(404)
  })
})

describe("triggers", () => {
  it("maps every trigger type, with the real prefix, to a label and description", async () => {
    await start()
    const res = await call("GET", "/hooks/triggers")
    expect(res.status).toBe(200)
    const triggers = res.body.triggers as Record<string, { label: string; description: string }>
    expect(Object.keys(triggers).sort()).toEqual(
      [
        "company_post_save", "company_post_delete", "lead_channel_subscription_changed", "lead_company_change",
        "lead_post_delete", "lead_post_save_new", "lead_points_change", "lead_list_change", "lead_post_save_update",
        "email_on_open", "email_on_send", "form_on_submit", "page_on_hit", "sms_on_send",
      ].map((t) => `mautic.${t}`).sort(),
    )
    expect(triggers["mautic.lead_post_save_update"]!.label).toBe("Contact updated event")
    expect(triggers["mautic.sms_on_send"]!.label).toBe("Text send event")
    for (const value of Object.values(triggers)) expect(typeof value.description).toBe("string")
  })
})

describe("the webhook list", () => {
  /** Creates n hooks named hook-01.. with URLs in reverse order; every third is unpublished. */
  const seed = async (n: number) => {
    for (let i = 1; i <= n; i++) {
      const name = `hook-${String(i).padStart(2, "0")}`
      await create({ name, webhookUrl: `https://r.example/${String(n - i).padStart(2, "0")}`, isPublished: i % 3 !== 0 })
    }
  }

  it("answers total and a map keyed by id (the seed's shape), 30 rows from 0 by default", async () => {
    await start()
    await seed(35)
    const res = await call("GET", "/hooks")
    expect(res.status).toBe(200)
    expect(res.body.total).toBe(35)
    expect(Array.isArray(res.body.hooks)).toBe(false)
    const ids = Object.keys(res.body.hooks).map(Number)
    expect(ids).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    expect(res.body.hooks["7"].name).toBe("hook-07")
  })

  it("pages with start and limit", async () => {
    await start({ hooksListShape: "array" })
    await seed(35)
    const rest = await call("GET", "/hooks?start=30")
    expect(rest.body.total).toBe(35)
    expect(rest.body.hooks.map((h: { id: number }) => h.id)).toEqual([31, 32, 33, 34, 35])
    const two = await call("GET", "/hooks?start=3&limit=2")
    expect(two.body.hooks.map((h: { id: number }) => h.id)).toEqual([4, 5])
  })

  it("orders by a snake_case column in either direction", async () => {
    await start({ hooksListShape: "array" })
    await seed(5)
    const byUrl = await call("GET", "/hooks?orderBy=webhook_url")
    expect(byUrl.body.hooks.map((h: { id: number }) => h.id)).toEqual([5, 4, 3, 2, 1])
    const byNameDesc = await call("GET", "/hooks?orderBy=name&orderByDir=desc")
    expect(byNameDesc.body.hooks.map((h: { id: number }) => h.id)).toEqual([5, 4, 3, 2, 1])
    const byDate = await call("GET", "/hooks?orderBy=date_added&orderByDir=DESC")
    expect(byDate.body.hooks).toHaveLength(5)
    expect((await call("GET", "/hooks?orderBy=no_such_column")).status).toBe(400)
  })

  it("keeps the requested order in the map shape's key order", async () => {
    await start()
    await seed(3)
    const res = await call("GET", "/hooks?orderBy=id&orderByDir=desc")
    const keysInText = [...res.text.matchAll(/"(\d+)":\{"isPublished"/g)].map((m) => m[1])
    expect(keysInText).toEqual(["3", "2", "1"])
  })

  it("filters with publishedOnly and searchFilter (text and commands)", async () => {
    await start({ hooksListShape: "array" })
    await seed(6)
    const published = await call("GET", "/hooks?publishedOnly=1")
    expect(published.body.total).toBe(4)
    expect(published.body.hooks.every((h: { isPublished: boolean }) => h.isPublished)).toBe(true)
    const text = await call("GET", `/hooks?searchFilter=${encodeURIComponent("hook-0")}`)
    expect(text.body.total).toBe(6)
    const one = await call("GET", "/hooks?searchFilter=hook-04")
    expect(one.body.hooks.map((h: { id: number }) => h.id)).toEqual([4])
    const unpublished = await call("GET", `/hooks?searchFilter=${encodeURIComponent("is:unpublished")}`)
    expect(unpublished.body.hooks.map((h: { id: number }) => h.id)).toEqual([3, 6])
  })

  it("answers simple objects without the nested lists when minimal", async () => {
    await start({ hooksListShape: "array" })
    await seed(2)
    const full = await call("GET", "/hooks")
    expect(full.body.hooks[0].triggers).toBeDefined()
    const minimal = await call("GET", "/hooks?minimal=true")
    expect(minimal.body.hooks[0]).toMatchObject({ id: 1, name: "hook-01" })
    expect(minimal.body.hooks[0].triggers).toBeUndefined()
    expect(minimal.body.hooks[0].category).toBeUndefined()
  })

  it("answers an empty map with total 0", async () => {
    await start()
    const res = await call("GET", "/hooks")
    expect(res.body).toEqual({ total: 0, hooks: {} })
  })
})
