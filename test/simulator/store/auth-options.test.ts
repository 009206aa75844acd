import { createHmac } from "node:crypto"
import OAuth from "oauth-1.0a"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type StoreSimulator, startStoreSimulator } from "../../../src/simulator/store/index.ts"

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`
const HTTPS = { "x-forwarded-proto": "https" }
const CANNOT_VIEW = { code: "woocommerce_rest_cannot_view", message: "Sorry, you cannot list resources.", data: { status: 401 } }

/** A URL signed the way WooCommerce's own JavaScript client signs (oauth-1.0a, HMAC-SHA256). */
const signed = (url: string, secret = "cs_test", at?: { timestamp: number }) => {
  const oauth = new OAuth({
    consumer: { key: "ck_test", secret },
    signature_method: "HMAC-SHA256",
    hash_function: (base, key) => createHmac("sha256", key).update(base).digest("base64")
  })
  if (at) oauth.getTimeStamp = () => at.timestamp
  const params = oauth.authorize({ url, method: "GET" })
  const u = new URL(url)
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, String(v))
  return u.toString()
}

const status = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers })
  return { status: res.status, body: (await res.json()) as unknown }
}

describe("store simulator: authentication as real hosts do it", () => {
  let strict: StoreSimulator
  let dropping: StoreSimulator
  let lenient: StoreSimulator
  beforeAll(async () => {
    const keys = { consumerKey: "ck_test", consumerSecret: "cs_test" }
    strict = await startStoreSimulator({ ...keys, auth: { httpsOnlyBasic: true } })
    dropping = await startStoreSimulator({ ...keys, auth: { dropAuthorization: true } })
    lenient = await startStoreSimulator(keys)
  })
  afterAll(async () => {
    await Promise.all([strict.close(), dropping.close(), lenient.close()])
  })

  it("reads HTTP Basic and query keys only over HTTPS (X-Forwarded-Proto), answering cannot_view otherwise", async () => {
    const query = `${strict.url}/orders?per_page=1&consumer_key=ck_test&consumer_secret=cs_test`
    expect(await status(`${strict.url}/orders?per_page=1`, { authorization: basic("ck_test", "cs_test") })).toEqual({ status: 401, body: CANNOT_VIEW })
    expect(await status(query)).toEqual({ status: 401, body: CANNOT_VIEW })
    expect((await status(`${strict.url}/orders?per_page=1`, { authorization: basic("ck_test", "cs_test"), ...HTTPS })).status).toBe(200)
    expect((await status(query, HTTPS)).status).toBe(200)
    expect(await status(`${strict.url}/orders`, { authorization: basic("ck_test", "cs_nope"), ...HTTPS })).toMatchObject({
      status: 401, body: { code: "woocommerce_rest_authentication_error", message: "Consumer secret is invalid." }
    })
  })

  it("verifies OAuth 1.0a signatures over plain HTTP, refusing a replayed nonce, an old timestamp and a wrong secret", async () => {
    const url = signed(`${strict.url}/orders?per_page=2&status=any`)
    expect(await status(url)).toMatchObject({ status: 200, body: { length: 2 } })
    const refused = (message: string) => ({ status: 401, body: { code: "woocommerce_rest_authentication_error", message, data: { status: 401 } } })
    expect(await status(url)).toEqual(refused("Invalid nonce - nonce has already been used."))
    const old = Math.floor(Date.now() / 1000) - 16 * 60
    expect(await status(signed(`${strict.url}/orders`, "cs_test", { timestamp: old }))).toEqual(refused("Invalid timestamp."))
    expect(await status(signed(`${strict.url}/orders`, "cs_nope"))).toEqual(refused("Invalid signature - provided signature does not match."))
    const tampered = signed(`${strict.url}/orders?per_page=2`).replace("per_page=2", "per_page=3")
    expect(await status(tampered)).toEqual(refused("Invalid signature - provided signature does not match."))
    const partial = `${strict.url}/orders?oauth_consumer_key=ck_test`
    expect(await status(partial)).toMatchObject({ status: 401, body: { code: "woocommerce_rest_authentication_missing_parameter" } })
  })

  it("signs against the HTTPS address behind a proxy that says so", async () => {
    const url = signed(`${strict.url}/orders?per_page=1`.replace("http://", "https://")).replace("https://", "http://")
    expect((await status(url, HTTPS)).status).toBe(200)
    expect((await status(signed(`${strict.url}/orders?per_page=1`), HTTPS)).status).toBe(401)
  })

  it("a host that drops the Authorization header sees no credentials; query keys still get through", async () => {
    const auth = { authorization: basic("ck_test", "cs_test"), ...HTTPS }
    expect(await status(`${dropping.url}/orders`, auth)).toEqual({ status: 401, body: CANNOT_VIEW })
    expect((await status(`${dropping.url}/orders?per_page=1&consumer_key=ck_test&consumer_secret=cs_test`, HTTPS)).status).toBe(200)
    expect((await status(signed(`${dropping.url}/orders?per_page=1`))).status).toBe(200)
  })

  it("by default reads every kind of credentials over any transport, and still answers no key as the seeds say", async () => {
    expect((await status(`${lenient.url}/orders?per_page=1`, { authorization: basic("ck_test", "cs_test") })).status).toBe(200)
    expect((await status(signed(`${lenient.url}/orders?per_page=1`))).status).toBe(200)
    expect(await status(`${lenient.url}/orders`)).toMatchObject({ status: 401, body: { message: "Consumer key is missing." } })
  })

  it("passes the request headers to onRequest (a test can see the User-Agent)", async () => {
    const seen: Array<string | undefined> = []
    const sim = await startStoreSimulator({ onRequest: ({ headers }) => void seen.push(headers["user-agent"]) })
    await fetch(`${sim.url}/orders`, { headers: { "user-agent": "probe/1" } }).then((r) => r.text())
    await sim.close()
    expect(seen).toEqual(["probe/1"])
  })
})
