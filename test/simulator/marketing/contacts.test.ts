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

const tagNames = (contact: { tags: Array<{ tag: string }> }) => contact.tags.map((t) => t.tag)

describe("creating and merging contacts", () => {
  it("creates with 201 and answers fields.all, tags and dates", async () => {
    await start()
    const res = await call("POST", "/contacts/new", { email: "jane@example.com", firstname: "Jane", tags: ["buyer"] })
    expect(res.status).toBe(201)
    const contact = res.body.contact
    expect(contact.id).toBe(1)
    expect(contact.fields.all).toMatchObject({ id: 1, email: "jane@example.com", firstname: "Jane", lastname: null })
    expect(contact.fields.core.email.value).toBe("jane@example.com")
    expect(tagNames(contact)).toEqual(["buyer"])
    expect(contact.dateAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/)
    expect(res.headers.get("location")).toBe(`${sim.baseUrl}/api/contacts/1`)
  })

  it("merges a POST with a case-variant email into the existing contact: 200, same id", async () => {
    await start()
    const first = await call("POST", "/contacts/new", { email: "Jane@Example.com", firstname: "Jane", lastname: "Doe" })
    const second = await call("POST", "/contacts/new", { email: "jane@EXAMPLE.com", lastname: "Smith", firstname: "" })
    expect(second.status).toBe(200)
    expect(second.body.contact.id).toBe(first.body.contact.id)
    // The blank firstname is ignored; lastname is overwritten.
    expect(second.body.contact.fields.all).toMatchObject({ firstname: "Jane", lastname: "Smith" })
    expect(sim.state.listContacts()).toHaveLength(1)
    expect(sim.state.findContactByEmail("JANE@example.COM")?.id).toBe(first.body.contact.id)
  })

  it("lets blank values overwrite only with overwriteWithBlank", async () => {
    await start()
    const { body } = await call("POST", "/contacts/new", { email: "a@example.com", firstname: "A", city: "Oslo" })
    const id = body.contact.id
    await call("PATCH", `/contacts/${id}/edit`, { city: "" })
    expect(sim.state.getContact(id)?.values["city"]).toBe("Oslo")
    await call("PATCH", `/contacts/${id}/edit`, { city: "", overwriteWithBlank: true })
    expect(sim.state.getContact(id)?.values["city"]).toBeNull()
    expect(sim.state.getContact(id)?.values["firstname"]).toBe("A")
  })

  it("adds tags additively and removes one given as -tag", async () => {
    await start()
    const { body } = await call("POST", "/contacts/new", { email: "t@example.com", tags: ["a", "b"] })
    const id = body.contact.id
    const added = await call("PATCH", `/contacts/${id}/edit`, { tags: ["c"] })
    expect(tagNames(added.body.contact)).toEqual(["a", "b", "c"])
    const removed = await call("PATCH", `/contacts/${id}/edit`, { tags: "-a,d" })
    expect(tagNames(removed.body.contact)).toEqual(["b", "c", "d"])
  })

  it("rejects an invalid email with 400 and details, creating nothing", async () => {
    await start()
    const res = await call("POST", "/contacts/new", { email: "not-an-email", firstname: "X" })
    expect(res.status).toBe(400)
    expect(res.body.errors[0]).toMatchObject({ code: 400, details: { email: [expect.any(String)] } })
    expect(res.body.errors[0].message).toMatch(/^email: /)
    expect(sim.state.listContacts()).toEqual([])
  })

  it("ignores unknown custom field aliases until the field exists", async () => {
    await start()
    const before = await call("POST", "/contacts/new", { email: "c@example.com", lifetime_value: "12.5" })
    expect(before.status).toBe(201)
    expect(before.body.contact.fields.all.lifetime_value).toBeUndefined()
    expect((await call("POST", "/fields/contact/new", { label: "Lifetime value", type: "number" })).status).toBe(201)
    const after = await call("POST", "/contacts/new", { email: "c@example.com", lifetime_value: "12.50" })
    expect(after.status).toBe(200)
    expect(after.body.contact.fields.all.lifetime_value).toBe("12.5")
  })

  it("drops numeric zero values on POST and PATCH, as the service does", async () => {
    await start()
    await call("POST", "/fields/contact/new", { label: "Orders", type: "number" })
    const { body } = await call("POST", "/contacts/new", { email: "z@example.com", orders: 3 })
    const id = body.contact.id
    const patched = await call("PATCH", `/contacts/${id}/edit`, { orders: 0 })
    expect(patched.body.contact.fields.all.orders).toBe("3")
    const put = await call("PUT", `/contacts/${id}/edit`, { email: "z@example.com", orders: 0 })
    expect(put.body.contact.fields.all.orders).toBe("0")
  })
})

describe("single contacts", () => {
  it("gets a contact by id and answers 404 for a missing one", async () => {
    await start()
    const created = sim.state.addContact({ email: "g@example.com", firstname: "G" })
    const res = await call("GET", `/contacts/${created.id}`)
    expect(res.status).toBe(200)
    expect(res.body.contact.fields.all.firstname).toBe("G")
    const missing = await call("GET", "/contacts/999")
    expect(missing.status).toBe(404)
    expect(missing.body.errors[0].message).toBe("Item was not found.")
  })

  it("PATCH updates only the given fields and answers 404 for a missing id", async () => {
    await start()
    const created = sim.state.addContact({ email: "p@example.com", firstname: "P", lastname: "Q" })
    const res = await call("PATCH", `/contacts/${created.id}/edit`, { lastname: "R" })
    expect(res.status).toBe(200)
    expect(res.body.contact.fields.all).toMatchObject({ firstname: "P", lastname: "R" })
    expect(res.body.contact.dateModified).not.toBeNull()
    expect((await call("PATCH", "/contacts/999/edit", { lastname: "R" })).status).toBe(404)
  })

  it("PUT replaces every field and creates with 201 when the id is missing", async () => {
    await start()
    const created = sim.state.addContact({ email: "r@example.com", firstname: "R", city: "Rome" })
    const replaced = await call("PUT", `/contacts/${created.id}/edit`, { email: "r@example.com", lastname: "New" })
    expect(replaced.status).toBe(200)
    expect(replaced.body.contact.fields.all).toMatchObject({ email: "r@example.com", firstname: null, city: null, lastname: "New" })
    const fresh = await call("PUT", "/contacts/500/edit", { email: "fresh@example.com" })
    expect(fresh.status).toBe(201)
    expect(sim.state.findContactByEmail("fresh@example.com")).toBeDefined()
  })

  it("merges two contacts when one is edited to the other's email; the edited one keeps its id", async () => {
    await start()
    const a = sim.state.addContact({ email: "a@example.com", city: "Athens" }, ["from-a"])
    const b = sim.state.addContact({ email: "b@example.com", firstname: "Bea" }, ["from-b"])
    const res = await call("PATCH", `/contacts/${b.id}/edit`, { email: "A@example.com" })
    expect(res.status).toBe(200)
    expect(res.body.contact.id).toBe(b.id)
    expect(res.body.contact.fields.all).toMatchObject({ firstname: "Bea", city: "Athens" })
    expect(tagNames(res.body.contact).sort()).toEqual(["from-a", "from-b"])
    expect(sim.state.getContact(a.id)).toBeUndefined()
    expect(sim.state.listContacts()).toHaveLength(1)
  })
})

describe("batch creation", () => {
  it("always answers 201 with a status code per entry and errors keyed by entry index", async () => {
    await start()
    sim.state.addContact({ email: "known@example.com" })
    const res = await call("POST", "/contacts/batch/new", [
      { email: "new@example.com" },
      { email: "broken" },
      { email: "KNOWN@example.com", firstname: "K" },
    ])
    expect(res.status).toBe(201)
    expect(res.body.statusCodes).toEqual([201, 400, 200])
    expect(Object.keys(res.body.errors)).toEqual(["1"])
    expect(res.body.errors["1"]).toMatchObject({ code: 400, details: { email: [expect.any(String)] } })
    // Entry 1 failed, so the contacts are keyed by entry index (a JSON object, as PHP encodes it).
    expect(Object.keys(res.body.contacts)).toEqual(["0", "2"])
    expect(res.body.contacts["2"].fields.all.firstname).toBe("K")
    expect(sim.state.listContacts()).toHaveLength(2)
  })

  it("answers a list of contacts and no errors when every entry succeeds", async () => {
    await start()
    const res = await call("POST", "/contacts/batch/new", [{ email: "x@example.com" }, { email: "y@example.com" }])
    expect(res.status).toBe(201)
    expect(Array.isArray(res.body.contacts)).toBe(true)
    expect(res.body.statusCodes).toEqual([201, 201])
    expect(res.body.errors).toBeUndefined()
  })

  it("accepts 200 entries and answers 500 for 201", async () => {
    await start()
    const entries = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ email: `${prefix}${i}@example.com` }))
    const ok = await call("POST", "/contacts/batch/new", entries(200, "ok"))
    expect(ok.status).toBe(201)
    expect(ok.body.statusCodes).toHaveLength(200)
    const tooMany = await call("POST", "/contacts/batch/new", entries(201, "no"))
    expect(tooMany.status).toBe(500)
    expect(tooMany.body.errors[0]).toMatchObject({ code: 500, message: "A max of 200 entities are supported at a time." })
    expect(sim.state.findContactByEmail("no0@example.com")).toBeUndefined()
  })

  it("uses the configured batch limit", async () => {
    await start({ batchMaxLimit: 2 })
    const res = await call("POST", "/contacts/batch/new", [{ email: "1@x.io" }, { email: "2@x.io" }, { email: "3@x.io" }])
    expect(res.status).toBe(500)
    expect(res.body.errors[0].message).toBe("A max of 2 entities are supported at a time.")
  })
})

describe("the contact list", () => {
  const seed = () => {
    sim.state.addContact({ email: "anna@shop.example", firstname: "Anna" }, ["vip"])
    sim.state.addContact({ email: "annabel@shop.example", firstname: "Annabel" })
    sim.state.addContact({ email: "bob@other.example", firstname: "Bob" })
  }

  it("answers total as a string and contacts keyed by id", async () => {
    await start()
    seed()
    const res = await call("GET", "/contacts")
    expect(res.status).toBe(200)
    expect(res.body.total).toBe("3")
    expect(Object.keys(res.body.contacts)).toEqual(["1", "2", "3"])
    expect(res.body.contacts["3"].fields.all.email).toBe("bob@other.example")
  })

  it("matches search=email:x as a prefix", async () => {
    await start()
    seed()
    const res = await call("GET", `/contacts?search=${encodeURIComponent("email:anna")}`)
    expect(res.body.total).toBe("2")
    expect(Object.keys(res.body.contacts)).toEqual(["1", "2"])
  })

  it("matches where[0][expr]=eq exactly, ignoring case", async () => {
    await start()
    seed()
    const q = new URLSearchParams({ "where[0][col]": "email", "where[0][expr]": "eq", "where[0][val]": "ANNA@shop.example" })
    const res = await call("GET", `/contacts?${q}`)
    expect(res.body.total).toBe("1")
    expect(Object.keys(res.body.contacts)).toEqual(["1"])
  })

  it("pages with start and limit", async () => {
    await start()
    seed()
    const res = await call("GET", "/contacts?start=1&limit=1")
    expect(res.body.total).toBe("3")
    expect(Object.keys(res.body.contacts)).toEqual(["2"])
  })

  it("answers an empty object when nothing matches", async () => {
    await start()
    const res = await call("GET", "/contacts?search=email:nobody")
    expect(res.body).toEqual({ total: "0", contacts: {} })
  })
})

describe("contact fields", () => {
  it("lists the fields, 30 at a time, with the total", async () => {
    await start()
    const first = await call("GET", "/fields/contact")
    expect(first.status).toBe(200)
    const builtIn = sim.state.listFields().length
    expect(first.body.total).toBe(builtIn)
    expect(first.body.fields.map((f: { alias: string }) => f.alias)).toContain("email")
    for (let i = 0; i < 5; i++) await call("POST", "/fields/contact/new", { label: `Extra ${i}` })
    const page = await call("GET", "/fields/contact")
    expect(page.body.total).toBe(builtIn + 5)
    expect(page.body.fields).toHaveLength(30)
    const rest = await call("GET", "/fields/contact?start=30")
    expect(rest.body.fields).toHaveLength(builtIn + 5 - 30)
  })

  it("creates a field with 201, deriving the alias from the label", async () => {
    await start()
    const res = await call("POST", "/fields/contact/new", { label: "Lifetime Value", type: "number", group: "professional" })
    expect(res.status).toBe(201)
    expect(res.body.field).toMatchObject({ label: "Lifetime Value", alias: "lifetime_value", type: "number", group: "professional", object: "lead" })
    expect((await call("GET", `/fields/contact/${res.body.field.id}`)).body.field.alias).toBe("lifetime_value")
  })

  it("gives a second field with a taken alias a numbered alias instead of failing", async () => {
    await start()
    await call("POST", "/fields/contact/new", { label: "Orders" })
    const again = await call("POST", "/fields/contact/new", { label: "Orders" })
    expect(again.status).toBe(201)
    expect(again.body.field.alias).toBe("orders1")
  })

  it("rejects a field without label or with an unknown type", async () => {
    await start()
    const res = await call("POST", "/fields/contact/new", { type: "number" })
    expect(res.status).toBe(400)
    expect(res.body.errors[0].details.label).toBeDefined()
    const badType = await call("POST", "/fields/contact/new", { label: "X", type: "spreadsheet" })
    expect(badType.status).toBe(400)
    expect(badType.body.errors[0].details.type).toBeDefined()
  })
})
