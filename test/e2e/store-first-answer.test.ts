// What retrying cannot fix fails at once, in one paragraph: TLS on a plain port, the site instead of its API, a redirect.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, Schema } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import type { HttpClients } from "../../src/http-client/clients.js"
import { startStoreSimulator } from "../../src/simulator/store/index.js"
import { defaultRetryPolicy, StoreClient } from "../../src/store-client/client.js"
import { makeStoreClient, storeSettings } from "../support/store-client.js"

const listOrders = Effect.flatMap(StoreClient, (c) => c.list("/orders", { per_page: 5 }, Schema.Unknown))

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

/** A plain HTTP server answering every request with `answer`; counts them. */
const serve = async (answer: (req: IncomingMessage, res: ServerResponse) => void) => {
  let hits = 0
  const server = createServer((req, res) => {
    hits++
    answer(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  closers.push(() => new Promise((resolve) => server.close(() => resolve())))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits }
}

/** The client with production's retry policy (8 attempts, backoff from 500 ms): a retried failure would take long. */
const production = (apiUrl: string, http?: Layer.Layer<HttpClients>) => {
  const settings = storeSettings(apiUrl, { maxAttempts: 8, requestTimeoutMs: 10_000 })
  const client = makeStoreClient(settings, { policy: defaultRetryPolicy(settings), ...(http ? { http } : {}) })
  closers.push(client.dispose)
  return client
}

const timed = async <A>(promise: Promise<A>) => {
  const started = Date.now()
  const value = await promise
  return { value, ms: Date.now() - started }
}

describe("store client: failures no retry can fix end at once", () => {
  it("an https:// URL on a plain-HTTP port: one attempt, the TLS failure named, no raw newline", async () => {
    const sim = await startStoreSimulator({ data: { seed: 2, orders: 3, customers: 2, products: 2 } })
    closers.push(() => sim.close())
    const client = production(sim.url.replace("http://", "https://"))
    const { value: error, ms } = await timed(client.fail(listOrders))
    expect(error).toMatchObject({ _tag: "StoreTlsFailed", code: "ERR_SSL_WRONG_VERSION_NUMBER", problem: "protocol" })
    expect(error.message).toContain("the server does not speak HTTPS on that port")
    expect(error.message).toContain("STORE_API_URL")
    expect(error.message).not.toMatch(/[\r\n]/)
    expect(await client.requests()).toBe(1)
    expect(client.logs).toEqual([])
    expect(ms).toBeLessThan(3_000)
  })

  it("a 200 with an HTML page first: the site, not its API root", async () => {
    const site = await serve((_, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=UTF-8" })
      res.end("<!DOCTYPE html>\n<html><head><title>My Shop &#8211; Home</title></head><body>Welcome</body></html>\n")
    })
    const client = production(`${site.origin}/shop/v3`)
    const { value: error, ms } = await timed(client.fail(listOrders))
    expect(error).toMatchObject({ _tag: "StoreNotApi", status: 200, title: "My Shop &#8211; Home" })
    expect(error.message).toBe(
      `STORE_API_URL points at the site, not its API root: GET ${site.origin}/shop/v3/orders?per_page=5 answered 200 with an HTML page ` +
        `("My Shop &#8211; Home") instead of JSON; set STORE_API_URL to the API root, usually ${site.origin}/wp-json/wc/v3`
    )
    expect(site.hits()).toBe(1)
    expect(ms).toBeLessThan(3_000)
  })

  it("a redirect: not followed, its Location named and the API root behind it suggested", async () => {
    const moved = await serve((req, res) => {
      res.writeHead(301, { location: `https://shop.example${req.url}` })
      res.end()
    })
    const client = production(`${moved.origin}/wp-json/wc/v3`)
    const { value: error, ms } = await timed(client.fail(listOrders))
    expect(error).toMatchObject({
      _tag: "StoreRedirected", status: 301, location: "https://shop.example/wp-json/wc/v3/orders?per_page=5", suggestion: "https://shop.example/wp-json/wc/v3"
    })
    expect(error.message).toBe(
      `the store redirects (301) to https://shop.example/wp-json/wc/v3/orders?per_page=5 from GET ${moved.origin}/wp-json/wc/v3/orders?per_page=5; ` +
        "shopsync does not follow redirects: set STORE_API_URL=https://shop.example/wp-json/wc/v3"
    )
    expect(moved.hits()).toBe(1)
    expect(ms).toBeLessThan(3_000)
  })

  it("a redirect's Location never shows the key, and one elsewhere gets no guess", async () => {
    const moved = await serve((req, res) => {
      res.writeHead(302, { location: `/login?from=${encodeURIComponent(req.url ?? "")}&consumer_secret=cs_demo` })
      res.end()
    })
    const client = production(`${moved.origin}/wp-json/wc/v3`)
    const error = await client.fail(listOrders)
    expect(error).toMatchObject({ _tag: "StoreRedirected", status: 302, suggestion: undefined })
    expect(error.message).not.toContain("cs_demo")
    expect(error.message).toContain("consumer_secret=***")
    expect(error.message).toContain("set STORE_API_URL to the address the API answers on without redirecting")
  })

  it("transient failures keep their retries", async () => {
    let n = 0
    const flaky = await serve((_, res) => {
      n++
      if (n === 1) return void res.socket?.destroy()
      res.writeHead(n === 2 ? 502 : 200, { "content-type": n === 2 ? "text/html" : "application/json" })
      res.end(n === 2 ? "<html><title>502 Bad Gateway</title></html>" : "[]")
    })
    const settings = storeSettings(`${flaky.origin}/wp-json/wc/v3`)
    const client = makeStoreClient(settings)
    closers.push(client.dispose)
    expect((await client.run(listOrders)).items).toEqual([])
    expect(flaky.hits()).toBe(3)
    // Two retries, beside the warning that the store is plain HTTP.
    expect(client.logs.filter((l) => !l.includes("unencrypted"))).toHaveLength(2)
  })
})

