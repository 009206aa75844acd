// Managed hosts' firewalls block requests without a User-Agent: both services see shopsync's on every request.
import { readFileSync } from "node:fs"
import { Effect, Layer, ManagedRuntime, Redacted, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { HttpClientsLive } from "../../src/http-client/clients.js"
import { SHOPSYNC_VERSION, USER_AGENT } from "../../src/http-client/user-agent.js"
import { MarketingClient, MarketingLive } from "../../src/marketing-client/client.js"
import { startMarketingSimulator } from "../../src/simulator/marketing/index.js"
import { startStoreSimulator } from "../../src/simulator/store/index.js"
import { StoreClient } from "../../src/store-client/client.js"
import { makeStoreClient, storeSettings } from "../support/store-client.js"

const packageVersion = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version

describe("User-Agent", () => {
  it("is shopsync/<the version in package.json>", () => {
    expect(SHOPSYNC_VERSION).toBe(packageVersion)
    expect(USER_AGENT).toBe(`shopsync/${packageVersion}`)
  })

  it("is sent on every request to the store, and no trace context (a store has no use for our trace ids)", async () => {
    const agents: Array<string | undefined> = []
    const traced: Array<string> = []
    const sim = await startStoreSimulator({
      data: { seed: 4, orders: 5, customers: 2, products: 2 },
      onRequest: ({ headers }) => {
        agents.push(headers["user-agent"])
        traced.push(...Object.keys(headers).filter((name) => /^(traceparent|tracestate|b3|x-b3-)/.test(name)))
      }
    })
    const client = makeStoreClient(storeSettings(sim.url))
    try {
      await client.run(Effect.flatMap(StoreClient, (c) => Effect.all([c.list("/orders", {}, Schema.Unknown), c.get("/reports/sales", {}, Schema.Unknown)])))
    } finally {
      await client.dispose()
      await sim.close()
    }
    expect(agents).toEqual([USER_AGENT, USER_AGENT])
    expect(traced).toEqual([])
  })

  it("is sent on every request to the marketing service, token requests included", async () => {
    const mk = await startMarketingSimulator()
    const settings = {
      baseUrl: mk.baseUrl, clientId: Redacted.make("mk_demo"), clientSecret: Redacted.make("mk_secret"), batchSize: 200,
      concurrency: 2, maxAttempts: 3, requestTimeoutMs: 5_000, tokenMarginSeconds: 60
    }
    const runtime = ManagedRuntime.make(MarketingLive(settings).pipe(Layer.provide(HttpClientsLive)))
    try {
      await runtime.runPromise(Effect.flatMap(MarketingClient, (c) => Effect.zip(c.listHooks, c.triggers)))
    } finally {
      await runtime.dispose()
      await mk.close()
    }
    expect(mk.requests.map((r) => r.url.split("?")[0])).toEqual(["/oauth/v2/token", "/api/hooks", "/api/hooks/triggers"])
    expect(mk.requests.map((r) => r.userAgent)).toEqual([USER_AGENT, USER_AGENT, USER_AGENT])
  })
})
