// A request's deadline (STORE_REQUEST_TIMEOUT_MS, MARKETING_REQUEST_TIMEOUT_MS) over real HTTP on loopback: a server
// that never answers, and one that sends its headers and then stalls in the body, are cut off at the deadline, the
// attempt fails as "no answer within", is retried, and the connection is closed (nothing left hanging on the server).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Effect, Layer, ManagedRuntime, Redacted, Schema } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import type { MarketingSettings } from "../../src/config/settings.js"
import { HttpClientsLive } from "../../src/http-client/clients.js"
import { makeTokenService, TokenService } from "../../src/marketing-client/token.js"
import { StoreClient } from "../../src/store-client/client.js"
import { makeStoreClient, storeSettings } from "../support/store-client.js"

const DEADLINE_MS = 400
const policy = { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: DEADLINE_MS }

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

/** A server that handles each request with `answer`, counting requests and the connections their clients closed. */
const serve = async (answer: (req: IncomingMessage, res: ServerResponse) => void) => {
  const seen = { requests: 0, closed: 0 }
  const server = createServer((req, res) => {
    seen.requests++
    res.on("close", () => seen.closed++)
    answer(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  closers.push(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

const SILENT = (_: IncomingMessage, __: ServerResponse) => {}
const STALLED_BODY = (_: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { "content-type": "application/json" })
  res.write("[{\"id\": 1,")
}

/** The garbage collector, to run on demand: the flag set at run time, the function taken from a context made after it. */
const collector = (): () => void => {
  setFlagsFromString("--expose-gc")
  return runInNewContext("gc") as () => void
}

const timed = async <A>(promise: Promise<A>) => {
  const started = Date.now()
  const value = await promise
  return { value, ms: Date.now() - started }
}

describe("a request's deadline", () => {
  for (const [what, answer] of [["never answers", SILENT], ["stalls in the body after its headers", STALLED_BODY]] as const) {
    it(`store: a server that ${what} is cut off at the deadline, each attempt, and the connection closed`, async () => {
      const server = await serve(answer)
      const client = makeStoreClient(storeSettings(`${server.origin}/wp-json/wc/v3`), { policy })
      closers.push(client.dispose)
      const { value: error, ms } = await timed(client.fail(Effect.flatMap(StoreClient, (c) => c.list("/orders", { per_page: 5 }, Schema.Unknown))))
      expect(error).toMatchObject({ _tag: "StoreUnreachable", reason: `no answer within ${DEADLINE_MS} ms`, attempts: 2 })
      expect(ms).toBeGreaterThanOrEqual(2 * DEADLINE_MS)
      expect(ms).toBeLessThan(2 * DEADLINE_MS + 2_000)
      expect(server.seen.requests).toBe(2)
      await expect.poll(() => server.seen.closed).toBe(2)
    })
  }

  // A deadline only a weak reference kept (Node's AbortSignal.timeout inside AbortSignal.any) was collected with
  // the garbage and never came: a token request waited for ever in CI.
  it("store: the deadline comes even when the garbage collector runs while the request waits", async () => {
    const gc = collector()
    const server = await serve(SILENT)
    const client = makeStoreClient(storeSettings(`${server.origin}/wp-json/wc/v3`), { policy: { ...policy, maxAttempts: 1 } })
    closers.push(client.dispose)
    const collecting = setInterval(gc, 25)
    try {
      const outcome = await Promise.race([
        client.fail(Effect.flatMap(StoreClient, (c) => c.list("/orders", { per_page: 5 }, Schema.Unknown))),
        new Promise((resolve) => setTimeout(() => resolve("still waiting after 5 s"), 5_000))
      ])
      expect(outcome).toMatchObject({ _tag: "StoreUnreachable", reason: `no answer within ${DEADLINE_MS} ms`, attempts: 1 })
    } finally {
      clearInterval(collecting)
    }
  })

  // Left to fire, an answered request's deadline kept its timer and controller for the whole deadline: thousands of
  // them at a listing's pace.
  it("store: an answered request leaves no deadline pending", async () => {
    const server = await serve((_, res) => res.writeHead(200, { "content-type": "application/json" }).end("[]"))
    // A deadline no other timer of the process has, to tell its timers apart.
    const timeoutMs = 59_999
    const client = makeStoreClient(storeSettings(`${server.origin}/wp-json/wc/v3`), { policy: { ...policy, timeoutMs } })
    closers.push(client.dispose)
    const [set, cleared] = [vi.spyOn(globalThis, "setTimeout"), vi.spyOn(globalThis, "clearTimeout")]
    try {
      await client.run(Effect.forEach(Array.from({ length: 20 }), () => Effect.flatMap(StoreClient, (c) => c.list("/orders", { per_page: 5 }, Schema.Unknown))))
      const deadlines = set.mock.results.filter((_, i) => set.mock.calls[i]![1] === timeoutMs).map((r) => r.value as unknown)
      expect(deadlines.length).toBeGreaterThanOrEqual(20)
      const gone = new Set(cleared.mock.calls.map((c) => c[0] as unknown))
      expect(deadlines.filter((timer) => !gone.has(timer))).toEqual([])
    } finally {
      set.mockRestore()
      cleared.mockRestore()
    }
  })

  // A run stopped (SIGTERM, a lost lease) interrupts its requests: each is aborted then, not left to its deadline.
  it("store: an interrupted request closes its connection at once, long before its deadline", async () => {
    const server = await serve(SILENT)
    const client = makeStoreClient(storeSettings(`${server.origin}/wp-json/wc/v3`), { policy: { ...policy, maxAttempts: 1, timeoutMs: 60_000 } })
    closers.push(client.dispose)
    const { value: outcome, ms } = await timed(client.run(Effect.flatMap(StoreClient, (c) => c.list("/orders", { per_page: 5 }, Schema.Unknown)).pipe(
      Effect.timeoutTo({ duration: "300 millis", onSuccess: () => "answered", onTimeout: () => "interrupted" }))))
    expect(outcome).toBe("interrupted")
    expect(server.seen.requests).toBe(1)
    await expect.poll(() => server.seen.closed, { timeout: 2_000 }).toBe(1)
    expect(ms).toBeLessThan(5_000)
  })

  it("marketing: a token endpoint that never answers is cut off at the deadline", async () => {
    const server = await serve(SILENT)
    const settings: MarketingSettings = {
      baseUrl: server.origin, clientId: Redacted.make("mk_id"), clientSecret: Redacted.make("mk_secret"),
      batchSize: 200, concurrency: 2, maxAttempts: 2, requestTimeoutMs: DEADLINE_MS, tokenMarginSeconds: 60
    }
    const tokens = Layer.effect(TokenService, makeTokenService(settings, { ...policy, maxServerWaitMs: 1_000 }))
    const runtime = ManagedRuntime.make(tokens.pipe(Layer.provide(HttpClientsLive)))
    closers.push(() => runtime.dispose())
    const { value: error, ms } = await timed(runtime.runPromise(Effect.flip(Effect.flatMap(TokenService, (t) => t.get))))
    expect(error).toMatchObject({ _tag: "MarketingUnreachable", reason: `no answer within ${DEADLINE_MS} ms`, attempts: 2 })
    expect(ms).toBeLessThan(2 * DEADLINE_MS + 2_000)
    await expect.poll(() => server.seen.closed).toBe(2)
  })
})
