// The store client's authentication against stores that read credentials as real hosts do (simulator over real HTTP).
import type { IncomingHttpHeaders } from "node:http"
import { Effect, Redacted, Schema } from "effect"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { startStoreSimulator, type StoreSimulator, type StoreSimulatorOptions } from "../../src/simulator/store/index.js"
import { StoreClient } from "../../src/store-client/client.js"
import type { StoreSettings } from "../../src/config/settings.js"
import { behindHttps, makeStoreClient, storeSettings } from "../support/store-client.js"

const DATA = { seed: 9, orders: 30, customers: 6, products: 4 }
const PUBLIC_ROOT = "https://shop.test/wp-json/wc/v3"

const listOrders = Effect.flatMap(StoreClient, (c) => c.list("/orders", { per_page: 5 }, Schema.Unknown))
const list = (path: string) => Effect.flatMap(StoreClient, (c) => c.list(path, {}, Schema.Unknown))

/** How each request the simulator saw carried the key. */
const carried = (seen: ReadonlyArray<{ headers: IncomingHttpHeaders; query: URLSearchParams }>) =>
  seen.map(({ headers, query }) =>
    query.has("oauth_signature") ? "oauth1" : query.has("consumer_key") ? "query" : headers.authorization ? "basic" : "none")

const opened: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()))
})

/** A simulator recording how each request carried the key, and a client of it. */
const setup = async (options: StoreSimulatorOptions, settings: Partial<StoreSettings> = {}, viaHttps = false) => {
  const seen: Array<{ path: string; headers: IncomingHttpHeaders; query: URLSearchParams }> = []
  const sim: StoreSimulator = await startStoreSimulator({ data: DATA, ...options, onRequest: (info) => void seen.push(info) })
  const client = viaHttps
    ? makeStoreClient(storeSettings(PUBLIC_ROOT, settings), { http: behindHttps(PUBLIC_ROOT, sim.url) })
    : makeStoreClient(storeSettings(sim.url, settings))
  opened.push(sim, { close: client.dispose })
  return { sim, client, seen }
}

describe("store client: authentication as real hosts need it", () => {
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()))
  })

  it("auto on a plain-HTTP store: signs every request from the first, never sends Basic, warns once, no 401", async () => {
    const { sim, client, seen } = await setup({ auth: { httpsOnlyBasic: true } })
    const pages = await client.run(Effect.all([listOrders, list("/customers"), listOrders, list("/products")], { concurrency: 4 }))
    expect(pages.map((p) => p.items.length)).toEqual([5, 6, 5, 4])
    const later = await client.run(Effect.all([listOrders, list("/customers")]))
    expect(later.map((p) => p.items.length)).toEqual([5, 6])
    expect(carried(seen)).toEqual(Array(6).fill("oauth1"))
    expect(seen.filter((s) => s.headers.authorization !== undefined)).toEqual([])
    expect(sim.requests.map((r) => r.status)).toEqual(Array(6).fill(200))
    expect(client.logs.filter((l) => l.includes("unencrypted"))).toHaveLength(1)
    expect(client.logs.join("\n")).toContain("every request is signed with OAuth 1.0a")
  })

  it("oauth1 signs from the first request, without a warning; basic explains why the store saw nothing", async () => {
    const signing = await setup({ auth: { httpsOnlyBasic: true } }, { auth: "oauth1" })
    expect((await signing.client.run(listOrders)).items).toHaveLength(5)
    expect(carried(signing.seen)).toEqual(["oauth1"])
    expect(signing.client.logs).toEqual([])

    const basic = await setup({ auth: { httpsOnlyBasic: true } }, { auth: "basic" })
    const error = await basic.client.fail(listOrders)
    expect(error).toMatchObject({ _tag: "StoreAuthFailed", status: 401, code: "woocommerce_rest_cannot_view", reason: "no-credentials" })
    expect(error.message).toContain("the store saw no credentials (the server may drop the Authorization header; see STORE_AUTH)")
    expect(error.message).toContain("WooCommerce reads HTTP Basic only over HTTPS")
    expect(await basic.client.requests()).toBe(1)
    // Chosen explicitly over plain HTTP: the secret went out in clear, and the run says so, naming the fixes.
    expect(basic.client.logs).toHaveLength(1)
    expect(basic.client.logs[0]).toContain("STORE_AUTH=basic over plain HTTP sends the consumer key and secret")
    expect(basic.client.logs[0]).toMatch(/https:\/\/.*STORE_AUTH=oauth1/)
    expect(basic.client.logs[0]).not.toContain("cs_demo")
  })

  it("a host that drops the Authorization header: auto over HTTPS explains and names STORE_AUTH=query, which works", async () => {
    const auto = await setup({ auth: { dropAuthorization: true } }, {}, true)
    const error = await auto.client.fail(listOrders)
    expect(error).toMatchObject({ _tag: "StoreAuthFailed", status: 401, reason: "no-credentials", url: `${PUBLIC_ROOT}/orders?per_page=5` })
    expect(error.message).toContain("the store saw no credentials (the server may drop the Authorization header; see STORE_AUTH)")
    expect(error.message).toContain("STORE_AUTH=query")
    expect(error.message).not.toMatch(/[\r\n]/)
    expect(await auto.client.requests()).toBe(1)

    const query = await setup({ auth: { dropAuthorization: true, httpsOnlyBasic: true }, faults: [{ kind: "503", times: 1 }] }, { auth: "query" }, true)
    expect((await query.client.run(listOrders)).items).toHaveLength(5)
    expect(query.sim.requests.map((r) => r.status)).toEqual([503, 200])
    expect(carried(query.seen)).toEqual(["query"])
    // The retry was logged with the URL, never the key or secret.
    expect(query.client.logs).toHaveLength(1)
    expect(query.client.logs.join("\n")).not.toMatch(/cs_demo|ck_demo/)
  })

  it("a wrong secret is named as such, over Basic and over OAuth 1.0a", async () => {
    const wrong = await setup({}, { consumerSecret: Redacted.make("cs_wrong") }, true)
    const error = await wrong.client.fail(listOrders)
    expect(error).toMatchObject({ _tag: "StoreAuthFailed", reason: "rejected", code: "woocommerce_rest_authentication_error" })
    expect(error.message).toBe(
      `the store rejected the consumer key (401 woocommerce_rest_authentication_error: Consumer secret is invalid.) on ${PUBLIC_ROOT}/orders?per_page=5; ` +
        "check STORE_CONSUMER_KEY and STORE_CONSUMER_SECRET"
    )
    const signed = await setup({ auth: { httpsOnlyBasic: true } }, { consumerSecret: Redacted.make("cs_wrong") })
    const unsigned = await signed.client.fail(listOrders)
    expect(unsigned).toMatchObject({ reason: "rejected", storeMessage: "Invalid signature - provided signature does not match." })
    expect(unsigned.message).toContain("check STORE_CONSUMER_KEY and STORE_CONSUMER_SECRET")
    expect(carried(signed.seen)).toEqual(["oauth1"])
  })

  it("a key without the capability is told apart from missing credentials", async () => {
    // Over plain HTTP the request is signed, which the store verifiably read: refused, the key lacks permission.
    const plain = await setup({ routes: { forbidden: ["/settings"] } })
    const first = await plain.client.fail(list("/settings"))
    expect(first).toMatchObject({ _tag: "StoreAuthFailed", reason: "permission", status: 401, code: "woocommerce_rest_cannot_view" })
    expect(first.message).toContain("the consumer key may not read")
    expect(carried(plain.seen)).toEqual(["oauth1"])
    // Over HTTPS, once Basic is known to be read: one request, refused for permission.
    const { client, seen } = await setup({ routes: { forbidden: ["/settings"] } }, {}, true)
    await client.run(listOrders)
    const later = await client.fail(list("/settings/general"))
    expect(later).toMatchObject({ reason: "permission" })
    expect(carried(seen)).toEqual(["basic", "basic"])
    expect(client.logs).toEqual([])
  })

  it("sends User-Agent shopsync/<version> on every store request", async () => {
    const { client, seen } = await setup({ auth: { httpsOnlyBasic: true } })
    await client.run(Effect.all([listOrders, list("/customers")]))
    const { version } = JSON.parse(await (await import("node:fs/promises")).readFile("package.json", "utf8")) as { version: string }
    expect(carried(seen)).toEqual(["oauth1", "oauth1"])
    expect(new Set(seen.map((s) => s.headers["user-agent"]))).toEqual(new Set([`shopsync/${version}`]))
  })
})
