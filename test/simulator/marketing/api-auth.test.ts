import { afterEach, describe, expect, it } from "vitest"
import { startMarketingSimulator, type MarketingSimulator } from "../../../src/simulator/marketing/index.ts"
import { basic, clientToken, FORM, json, manualClock } from "./support.ts"

let sim: MarketingSimulator
afterEach(async () => {
  await sim?.close()
})

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${sim.baseUrl}${path}`, { headers })

const accessDenied = { errors: [{ message: "API authorization denied.", code: 401, type: "access_denied" }] }
const invalidToken = { errors: [{ message: "The access token provided is invalid.", code: 401, type: "invalid_grant" }] }

describe("bearer tokens on the API", () => {
  it("answers 401 access_denied without credentials", async () => {
    sim = await startMarketingSimulator()
    const res = await get("/api/contacts")
    expect(res.status).toBe(401)
    expect(await json(res)).toEqual(accessDenied)
  })

  it("answers 401 for an unknown token", async () => {
    sim = await startMarketingSimulator()
    const res = await get("/api/contacts", { authorization: "Bearer made-up" })
    expect(res.status).toBe(401)
    expect(await json(res)).toEqual(invalidToken)
  })

  it("answers 401 'has expired' once expires_in has passed", async () => {
    const clock = manualClock()
    sim = await startMarketingSimulator({ clock })
    const token = await clientToken(sim)
    clock.advanceSeconds(3599)
    expect((await get("/api/contacts", { authorization: `Bearer ${token}` })).status).toBe(200)
    clock.advanceSeconds(1)
    const res = await get("/api/contacts", { authorization: `Bearer ${token}` })
    expect(res.status).toBe(401)
    expect(await json(res)).toEqual({
      errors: [{ message: "The access token provided has expired.", code: 401, type: "invalid_grant" }],
    })
  })

  it("accepts the token as a field of a form-encoded POST body, without it reaching the data", async () => {
    sim = await startMarketingSimulator()
    const token = await clientToken(sim)
    const res = await fetch(`${sim.baseUrl}/api/contacts/new`, {
      method: "POST",
      headers: FORM,
      body: new URLSearchParams({ access_token: token, email: "form@example.com", "tags[]": "via-form" }).toString(),
    })
    expect(res.status).toBe(201)
    expect(sim.state.findContactByEmail("form@example.com")?.tags).toEqual(["via-form"])
    expect(sim.requests.at(-1)).toMatchObject({ method: "POST", status: 201, hadTokenInUrl: false })
  })

  it("accepts the token in the query string but records that it was in the URL", async () => {
    sim = await startMarketingSimulator()
    const token = await clientToken(sim)
    const headerCall = await get("/api/contacts", { authorization: `Bearer ${token}` })
    expect(headerCall.status).toBe(200)
    expect(sim.requests.some((r) => r.hadTokenInUrl)).toBe(false)
    const res = await get(`/api/contacts?access_token=${encodeURIComponent(token)}`)
    expect(res.status).toBe(200)
    expect(sim.requests.at(-1)).toMatchObject({ status: 200, hadTokenInUrl: true })
  })

  it("refuses a token given in two places at once", async () => {
    sim = await startMarketingSimulator()
    const token = await clientToken(sim)
    const res = await get(`/api/contacts?access_token=${token}`, { authorization: `Bearer ${token}` })
    expect(res.status).toBe(400)
    expect((await json(res)).errors[0].type).toBe("invalid_request")
  })

  it("only reads a body token on POST", async () => {
    sim = await startMarketingSimulator()
    const token = await clientToken(sim)
    const res = await fetch(`${sim.baseUrl}/api/hooks/1/edit`, {
      method: "PATCH",
      headers: FORM,
      body: new URLSearchParams({ access_token: token, name: "x" }).toString(),
    })
    expect(res.status).toBe(400)
  })

  it("stops accepting every token after revokeAllTokens", async () => {
    sim = await startMarketingSimulator()
    const token = await clientToken(sim)
    expect(sim.state.tokens.activeAccessTokens).toBe(1)
    sim.revokeAllTokens()
    expect(sim.state.tokens.activeAccessTokens).toBe(0)
    const res = await get("/api/contacts", { authorization: `Bearer ${token}` })
    expect(res.status).toBe(401)
    expect(await json(res)).toEqual(invalidToken)
  })

  it("answers 403 while the API is disabled", async () => {
    sim = await startMarketingSimulator({ apiEnabled: false })
    const res = await get("/api/contacts", { authorization: "Bearer whatever" })
    expect(res.status).toBe(403)
  })

  it("answers 404 with the error shape for an unknown API path", async () => {
    sim = await startMarketingSimulator()
    const res = await get("/api/nothing-here", { authorization: `Bearer ${await clientToken(sim)}` })
    expect(res.status).toBe(404)
    expect((await json(res)).errors[0].code).toBe(404)
  })
})

describe("HTTP Basic on the API", () => {
  it("is disabled by default: Basic credentials are not accepted", async () => {
    sim = await startMarketingSimulator()
    const res = await get("/api/contacts", { authorization: basic("admin", "admin") })
    expect(res.status).toBe(401)
    expect(await json(res)).toEqual(accessDenied)
  })

  it("accepts a user's name and password once enabled, and rejects a wrong password", async () => {
    sim = await startMarketingSimulator({ basicAuth: true })
    expect((await get("/api/contacts", { authorization: basic("admin", "admin") })).status).toBe(200)
    const wrong = await get("/api/contacts", { authorization: basic("admin", "nope") })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Basic/)
  })

  it("can be enabled for one given account", async () => {
    sim = await startMarketingSimulator({ basicAuth: { username: "api", password: "s3cret" } })
    expect((await get("/api/contacts", { authorization: basic("api", "s3cret") })).status).toBe(200)
    expect((await get("/api/contacts", { authorization: basic("admin", "admin") })).status).toBe(401)
  })

  it("records actions under the signed-in user", async () => {
    sim = await startMarketingSimulator({ basicAuth: true })
    const res = await fetch(`${sim.baseUrl}/api/hooks/new`, {
      method: "POST",
      headers: { authorization: basic("admin", "admin"), "content-type": "application/json" },
      body: JSON.stringify({ name: "h", webhookUrl: "https://example.com/h", triggers: ["mautic.lead_post_delete"] }),
    })
    expect(res.status).toBe(201)
    expect((await json(res)).hook).toMatchObject({ createdBy: 1, createdByUser: "admin" })
  })
})
