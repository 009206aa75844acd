import { afterEach, describe, expect, it } from "vitest"
import { startMarketingSimulator, type MarketingSimulator } from "../../../src/simulator/marketing/index.ts"
import { basic, json, manualClock, postForm } from "./support.ts"

const REDIRECT = "http://127.0.0.1/callback"
const DAY = 24 * 60 * 60

let sim: MarketingSimulator
afterEach(async () => {
  await sim?.close()
})

const tokenUrl = () => `${sim.baseUrl}/oauth/v2/token`

const authorizeQuery = (overrides: Record<string, string> = {}) =>
  new URLSearchParams({
    grant_type: "authorization_code",
    client_id: "mk_demo",
    redirect_uri: REDIRECT,
    response_type: "code",
    state: "s",
    ...overrides,
  })

/** Walks the browser part of the flow: sign-in page, then the credentials post that redirects back. */
const signIn = async (state: string, password = "admin") => {
  const page = await fetch(`${sim.baseUrl}/oauth/v2/authorize?${authorizeQuery({ state })}`)
  expect(page.status).toBe(200)
  expect(page.headers.get("content-type")).toMatch(/text\/html/)
  const html = await page.text()
  expect(html).toContain('name="username"')
  expect(html).toContain('name="password"')
  return fetch(`${sim.baseUrl}/oauth/v2/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: "mk_demo",
      redirect_uri: REDIRECT,
      response_type: "code",
      state,
      username: "admin",
      password,
    }).toString(),
  })
}

const codeFor = async (state = "s"): Promise<string> => {
  const res = await signIn(state)
  return new URL(res.headers.get("location")!).searchParams.get("code")!
}

const exchange = (code: string, redirectUri = REDIRECT) =>
  postForm(tokenUrl(), {
    grant_type: "authorization_code",
    client_id: "mk_demo",
    client_secret: "mk_secret",
    redirect_uri: redirectUri,
    code,
  })

const refresh = (refreshToken: string) =>
  postForm(tokenUrl(), {
    grant_type: "refresh_token",
    client_id: "mk_demo",
    client_secret: "mk_secret",
    refresh_token: refreshToken,
  })

const callApi = (token: string) => fetch(`${sim.baseUrl}/api/hooks`, { headers: { authorization: `Bearer ${token}` } })

/** A token answer of the authorization-code and refresh grants (default lifetime). */
const tokenPair = {
  access_token: expect.any(String),
  expires_in: 3600,
  token_type: "bearer",
  scope: null,
  refresh_token: expect.any(String),
}

const invalidGrant = { errors: [{ message: expect.any(String), code: 400, type: "invalid_grant" }] }

describe("authorization code flow", () => {
  it("signs in, redirects back with a code and the unchanged state, and exchanges the code for tokens", async () => {
    sim = await startMarketingSimulator()
    const state = "a b/c?d=e&f+g%é"
    const res = await signIn(state)
    expect(res.status).toBe(302)
    const location = new URL(res.headers.get("location")!)
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT)
    expect(location.searchParams.get("state")).toBe(state)
    const code = location.searchParams.get("code")
    expect(code).toBeTruthy()

    const tokenRes = await exchange(code!)
    expect(tokenRes.status).toBe(200)
    const body = await json(tokenRes)
    expect(body).toEqual(tokenPair)
    expect((await callApi(body.access_token)).status).toBe(200)
  })

  it("accepts a code only once", async () => {
    sim = await startMarketingSimulator()
    const code = await codeFor()
    expect((await exchange(code)).status).toBe(200)
    const again = await exchange(code)
    expect(again.status).toBe(400)
    expect(await json(again)).toEqual(invalidGrant)
  })

  it("rejects a code exchanged with another redirect_uri", async () => {
    sim = await startMarketingSimulator()
    const res = await exchange(await codeFor(), "http://127.0.0.1/elsewhere")
    expect(res.status).toBe(400)
    expect(await json(res)).toEqual(invalidGrant)
  })

  it("answers an unregistered redirect_uri with an error instead of redirecting", async () => {
    sim = await startMarketingSimulator()
    const res = await fetch(
      `${sim.baseUrl}/oauth/v2/authorize?${authorizeQuery({ redirect_uri: "http://evil.example/cb" })}`,
      { redirect: "manual" },
    )
    expect(res.status).toBe(400)
    expect(res.headers.get("location")).toBeNull()
  })

  it("answers an unknown client_id with an error instead of a sign-in page", async () => {
    sim = await startMarketingSimulator()
    const res = await fetch(`${sim.baseUrl}/oauth/v2/authorize?${authorizeQuery({ client_id: "nobody" })}`)
    expect(res.status).toBe(400)
  })

  it("sends an unsupported response_type back to the client with the state", async () => {
    sim = await startMarketingSimulator()
    const res = await fetch(`${sim.baseUrl}/oauth/v2/authorize?${authorizeQuery({ response_type: "token", state: "x1" })}`, {
      redirect: "manual",
    })
    expect(res.status).toBe(302)
    const location = new URL(res.headers.get("location")!)
    expect(location.searchParams.get("error")).toBe("unsupported_response_type")
    expect(location.searchParams.get("state")).toBe("x1")
  })

  it("shows the sign-in page again for a wrong password", async () => {
    sim = await startMarketingSimulator()
    const res = await signIn("s", "wrong")
    expect(res.status).toBe(200)
    expect(res.headers.get("location")).toBeNull()
  })
})

describe("refresh tokens", () => {
  const tokensFromCode = async () => (await json(await exchange(await codeFor()))) as {
    access_token: string
    refresh_token: string
  }

  it("rotates: a refresh issues a new access and refresh token and the old refresh token stops working", async () => {
    sim = await startMarketingSimulator()
    const first = await tokensFromCode()
    const res = await refresh(first.refresh_token)
    expect(res.status).toBe(200)
    const second = await json(res)
    expect(second).toEqual(tokenPair)
    expect(second.access_token).not.toBe(first.access_token)
    expect(second.refresh_token).not.toBe(first.refresh_token)
    expect((await callApi(second.access_token)).status).toBe(200)

    const reused = await refresh(first.refresh_token)
    expect(reused.status).toBe(400)
    expect(await json(reused)).toEqual(invalidGrant)
    expect((await refresh(second.refresh_token)).status).toBe(200)
  })

  it("rejects an unknown refresh token with 400 invalid_grant", async () => {
    sim = await startMarketingSimulator()
    const res = await refresh("never-issued")
    expect(res.status).toBe(400)
    expect(await json(res)).toEqual(invalidGrant)
  })

  it("expires refresh tokens 14 days after issue; each refresh starts a new 14 days", async () => {
    const clock = manualClock()
    sim = await startMarketingSimulator({ clock })
    const first = await tokensFromCode()
    clock.advanceSeconds(10 * DAY)
    const second = await json(await refresh(first.refresh_token))
    clock.advanceSeconds(13 * DAY) // 23 days after the first token, 13 after the second
    const third = await refresh(second.refresh_token)
    expect(third.status).toBe(200)
    const { refresh_token } = await json(third)
    clock.advanceSeconds(14 * DAY + 1)
    const expired = await refresh(refresh_token)
    expect(expired.status).toBe(400)
    expect(await json(expired)).toEqual(invalidGrant)
  })

  it("uses the configured refresh token lifetime", async () => {
    const clock = manualClock()
    sim = await startMarketingSimulator({ clock, refreshTokenTtlSeconds: 60 })
    const { refresh_token } = await tokensFromCode()
    clock.advanceSeconds(61)
    expect((await refresh(refresh_token)).status).toBe(400)
  })
})

describe("client credentials", () => {
  it("issues an access token without a refresh token, with the configured lifetime", async () => {
    sim = await startMarketingSimulator({ accessTokenTtlSeconds: 120 })
    const res = await postForm(tokenUrl(), { grant_type: "client_credentials", client_id: "mk_demo", client_secret: "mk_secret" })
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toBe("no-store")
    const body = await json(res)
    expect(body).toEqual({ access_token: expect.any(String), expires_in: 120, token_type: "bearer", scope: null })
    expect("refresh_token" in body).toBe(false)
    expect((await callApi(body.access_token)).status).toBe(200)
  })

  it("answers a wrong secret or unknown client with 400 invalid_client", async () => {
    sim = await startMarketingSimulator()
    const expected = { errors: [{ message: "The client credentials are invalid", code: 400, type: "invalid_client" }] }
    for (const fields of [
      { client_id: "mk_demo", client_secret: "nope" },
      { client_id: "unknown", client_secret: "mk_secret" },
    ]) {
      const res = await postForm(tokenUrl(), { grant_type: "client_credentials", ...fields })
      expect(res.status).toBe(400)
      expect(await json(res)).toEqual(expected)
    }
  })

  it("accepts the client id and secret as HTTP Basic", async () => {
    sim = await startMarketingSimulator()
    const ok = await postForm(tokenUrl(), { grant_type: "client_credentials" }, { authorization: basic("mk_demo", "mk_secret") })
    expect(ok.status).toBe(200)
    expect((await json(ok)).token_type).toBe("bearer")
    const bad = await postForm(tokenUrl(), { grant_type: "client_credentials" }, { authorization: basic("mk_demo", "x") })
    expect(bad.status).toBe(400)
    expect((await json(bad)).errors[0].type).toBe("invalid_client")
  })

  it("rejects a missing or unsupported grant_type and counts every token request", async () => {
    sim = await startMarketingSimulator()
    const missing = await postForm(tokenUrl(), { client_id: "mk_demo", client_secret: "mk_secret" })
    expect(missing.status).toBe(400)
    expect((await json(missing)).errors[0].type).toBe("invalid_request")
    const unsupported = await postForm(tokenUrl(), { grant_type: "password", client_id: "mk_demo", client_secret: "mk_secret" })
    expect(unsupported.status).toBe(400)
    expect((await json(unsupported)).errors[0].type).toBe("unsupported_grant_type")
    // A JSON body is not the form encoding the token endpoint reads.
    const jsonBody = await fetch(tokenUrl(), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "client_credentials", client_id: "mk_demo", client_secret: "mk_secret" }),
    })
    expect(jsonBody.status).toBe(400)
    expect(sim.state.tokenRequests).toBe(3)
    expect(sim.state.tokenRequestsFor("password")).toBe(1)
  })
})
