import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Logger, Random, Redacted, Ref, Schema, TestClock } from "effect"
import { fixedClients, HttpClients } from "../../src/http-client/clients.js"
import { makeStoreClient } from "../../src/store-client/client.js"
import { storeSettings } from "../support/store-client.js"

const settings = storeSettings("https://shop.test/wp-json/wc/v3", {
  consumerKey: Redacted.make("ck_1"),
  consumerSecret: Redacted.make("cs_2"),
  maxAttempts: 3,
  concurrency: 2
})
const policy = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 5_000 }

type Reply = { readonly status: number; readonly body: string; readonly headers?: Record<string, string> } | "reset"

/** A store client over a fake store whose n-th request (1-based) gets `reply(n)`; `calls` counts them. */
const storeClient = (reply: (n: number) => Reply) =>
  Effect.gen(function*() {
    const calls = yield* Ref.make(0)
    const http = HttpClient.make((request) =>
      Effect.gen(function*() {
        const answer = reply(yield* Ref.updateAndGet(calls, (n) => n + 1))
        if (answer === "reset") {
          const cause = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })
          return yield* new HttpClientError.RequestError({ request, reason: "Transport", cause })
        }
        return HttpClientResponse.fromWeb(request, new Response(answer.body, { status: answer.status, headers: answer.headers }))
      }))
    const client = yield* Effect.provideService(makeStoreClient(settings, policy), HttpClients, fixedClients(http))
    return { client, calls: Ref.get(calls) }
  })

const Item = Schema.Struct({ id: Schema.Int, total: Schema.String })
const page = [{ id: 1, total: "12.30", note: "kept" }, { id: 2, total: "4.00", meta: { a: 1 } }]
const ok = (body: unknown, headers: Record<string, string> = {}): Reply => ({ status: 200, body: JSON.stringify(body), headers })

/** Runs `effect` with the TestClock moved past any retry, collecting the warnings it logged. */
const settled = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const logs: string[] = []
    const fiber = yield* effect.pipe(
      Effect.either,
      Effect.withRandom(Random.fixed([1])),
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void logs.push(String(message))))),
      Effect.fork
    )
    yield* TestClock.adjust("1 minute")
    return { result: yield* Fiber.join(fiber), logs }
  })

describe("store client", () => {
  it.effect("decodes list items with a schema, keeping every field the schema does not name", () =>
    Effect.gen(function*() {
      const { client } = yield* storeClient(() => ok(page, { "x-wp-total": "7", "x-wp-totalpages": "4", date: "Wed, 01 Jul 2026 12:00:00 GMT" }))
      const typed = yield* client.list("/orders", { page: 1 }, Item)
      expect(typed.items).toEqual(page)
      expect(typed).toMatchObject({ total: 7, totalPages: 4, serverTime: new Date("2026-07-01T12:00:00Z"), json: JSON.stringify(page) })
    }))

  it.effect("names the document that does not fit, and what of it does not", () =>
    Effect.gen(function*() {
      const bad = [page[0], { id: 9, total: 12.3 }]
      const { client } = yield* storeClient((n) => ok(n === 1 ? bad : bad[1]))
      const error = yield* Effect.flip(client.list("/orders", {}, Item))
      expect(error).toMatchObject({ _tag: "StoreDocumentInvalid", url: "/orders", detail: expect.stringMatching(/^document \(id 9\): [\s\S]*total/) })
      expect(error.message).toContain("(id 9)")
      const single = yield* Effect.flip(client.get("/orders/9", {}, Item))
      expect(single).toMatchObject({ _tag: "StoreDocumentInvalid", url: "/orders/9", detail: expect.stringMatching(/^document \(id 9\): [\s\S]*total/) })
    }))

  it.effect("gets one document, typed", () =>
    Effect.gen(function*() {
      const { client } = yield* storeClient(() => ok(page[1]))
      expect(yield* client.get("/orders/2", {}, Item)).toEqual(page[1])
    }))

  it.effect("retries a 503 after the server's Retry-After, logging the retry without credentials", () =>
    Effect.gen(function*() {
      const { client, calls } = yield* storeClient((n) => (n === 1 ? { status: 503, body: "", headers: { "retry-after": "7" } } : ok(page)))
      const { result, logs } = yield* settled(client.list("/orders", { consumer_key: "ck_1", page: 2 }, Schema.Unknown))
      expect(result).toMatchObject({ _tag: "Right" })
      expect(yield* calls).toBe(2)
      expect(logs).toEqual([
        "store: 503 on GET https://shop.test/wp-json/wc/v3/orders?consumer_key=***&page=2; retrying in 7000 ms (attempt 2 of 3)"
      ])
    }))

  it.effect("gives up after maxAttempts, saying how many attempts were made", () =>
    Effect.gen(function*() {
      const { client } = yield* storeClient(() => ({ status: 502, body: "<html><title>Bad gateway</title></html>" }))
      const { result } = yield* settled(client.list("/orders", {}, Schema.Unknown))
      expect(result).toMatchObject({ _tag: "Left", left: { _tag: "StoreRequestFailed", status: 502, attempts: 3 } })
    }))

  it.effect("reports a dropped connection by its system code once retries run out", () =>
    Effect.gen(function*() {
      const { client } = yield* storeClient(() => "reset")
      const { result, logs } = yield* settled(client.get("/orders/1", {}, Schema.Unknown))
      expect(result).toMatchObject({ _tag: "Left", left: { _tag: "StoreUnreachable", reason: "ECONNRESET", attempts: 3 } })
      expect(logs[0]).toContain("store: ECONNRESET on GET https://shop.test/wp-json/wc/v3/orders/1; retrying in 500 ms (attempt 2 of 3)")
    }))

  it.effect("does not retry rejected credentials or a 404", () =>
    Effect.gen(function*() {
      const auth = yield* storeClient(() => ({ status: 401, body: JSON.stringify({ code: "woocommerce_rest_cannot_view", message: "no" }) }))
      expect(yield* Effect.flip(auth.client.list("/orders", {}, Schema.Unknown))).toMatchObject({ _tag: "StoreAuthFailed", status: 401, code: "woocommerce_rest_cannot_view" })
      expect(yield* auth.calls).toBe(1)
      const gone = yield* storeClient(() => ({ status: 404, body: JSON.stringify({ code: "woocommerce_rest_shop_order_invalid_id", message: "Invalid ID." }) }))
      expect(yield* Effect.flip(gone.client.get("/orders/5", {}, Schema.Unknown))).toMatchObject({ _tag: "StoreRequestFailed", status: 404, attempts: 1 })
      expect(yield* gone.calls).toBe(1)
    }))
})
