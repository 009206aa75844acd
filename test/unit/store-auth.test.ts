import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Option, Random, Redacted, Ref, Schema, TestClock } from "effect"
import { type StoreSettings, storeSettingsConfig } from "../../src/config/settings.js"
import { fixedClients, HttpClients } from "../../src/http-client/clients.js"
import { signatureMatches } from "../../src/simulator/http/oauth1.js"
import { makeStoreClient } from "../../src/store-client/client.js"
import { storeSettings } from "../support/store-client.js"

const settings = storeSettings("http://shop.test/wp-json/wc/v3", {
  consumerKey: Redacted.make("ck_1"),
  consumerSecret: Redacted.make("cs_2"),
  maxAttempts: 3,
  concurrency: 2
})
const policy = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 5_000 }

type Reply = { readonly status: number; readonly body: string; readonly headers?: Record<string, string> } | { readonly code: string }

/** A store client over a fake store whose n-th request gets `reply(n)`; `sent` keeps the requests as sent. */
const storeClient = (reply: (n: number) => Reply, overrides: Partial<StoreSettings> = {}) =>
  Effect.gen(function*() {
    const sent = yield* Ref.make<ReadonlyArray<HttpClientRequest.HttpClientRequest>>([])
    const http = HttpClient.make((request) =>
      Effect.gen(function*() {
        const answer = reply((yield* Ref.updateAndGet(sent, (all) => [...all, request])).length)
        if ("code" in answer) {
          const cause = Object.assign(new Error("handshake failed\nat line 2"), { code: answer.code })
          return yield* new HttpClientError.RequestError({ request, reason: "Transport", cause })
        }
        return HttpClientResponse.fromWeb(request, new Response(answer.body, { status: answer.status, headers: answer.headers }))
      }))
    const client = yield* Effect.provideService(makeStoreClient({ ...settings, ...overrides }, policy), HttpClients, fixedClients(http))
    return { client, sent: Ref.get(sent) }
  })

const urlOf = (request: HttpClientRequest.HttpClientRequest) => Option.getOrThrow(HttpClientRequest.toUrl(request))
const json = (status: number, body: unknown): Reply => ({ status, body: JSON.stringify(body) })

describe("store client: credentials", () => {
  it.effect("signs with OAuth 1.0a from Effect's Clock and Random, afresh on every retry, as the simulator verifies", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-05-01T10:00:00Z"))
      const { client, sent } = yield* storeClient((n) => (n === 1 ? json(503, {}) : json(200, [])), { auth: "oauth1" })
      const fiber = yield* Effect.fork(client.list("/orders", { per_page: 5, after: "2026-01-01T00:00:00" }, Schema.Unknown))
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      const [first, second] = (yield* sent).map(urlOf)
      expect(first!.searchParams.get("oauth_timestamp")).toBe(String(Date.parse("2026-05-01T10:00:00Z") / 1000))
      expect(first!.searchParams.get("oauth_signature_method")).toBe("HMAC-SHA256")
      expect(first!.searchParams.get("oauth_nonce")).toMatch(/^[A-Za-z0-9]{32}$/)
      expect(second!.searchParams.get("oauth_nonce")).not.toBe(first!.searchParams.get("oauth_nonce"))
      for (const url of [first!, second!]) {
        expect(url.searchParams.getAll("per_page")).toEqual(["5"])
        expect(signatureMatches("GET", `${url.origin}${url.pathname}`, url.searchParams, "cs_2")).toBe(true)
        expect(signatureMatches("GET", `${url.origin}${url.pathname}`, url.searchParams, "cs_other")).toBe(false)
      }
    }).pipe(Effect.withRandom(Random.make("fixed seed"))))

  it.effect("auto signs from the first request over plain HTTP (no Authorization header) and sends Basic only over HTTPS", () =>
    Effect.gen(function*() {
      const plain = yield* storeClient(() => json(200, []))
      yield* plain.client.list("/orders", {}, Schema.Unknown)
      const [signed] = yield* plain.sent
      expect(signed!.headers["authorization"]).toBeUndefined()
      expect(urlOf(signed!).searchParams.has("oauth_signature")).toBe(true)
      const secure = yield* storeClient(() => json(200, []), { apiUrl: "https://shop.test/wp-json/wc/v3" })
      yield* secure.client.list("/orders", {}, Schema.Unknown)
      const [basic] = yield* secure.sent
      expect(basic!.headers["authorization"]).toMatch(/^Basic /)
      expect(urlOf(basic!).searchParams.has("oauth_signature")).toBe(false)
    }))

  it.effect("query sends the key and secret as parameters, never in what errors show", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* storeClient(() => json(404, { code: "woocommerce_rest_shop_order_invalid_id", message: "Invalid ID." }), {
        apiUrl: "https://shop.test/wp-json/wc/v3", auth: "query"
      })
      const error = yield* Effect.flip(client.get("/orders/7", {}, Schema.Unknown))
      const [request] = yield* sent
      expect(urlOf(request!).searchParams.get("consumer_secret")).toBe("cs_2")
      expect(request!.headers["authorization"]).toBeUndefined()
      expect(error.message).not.toContain("cs_2")
    }))

  it.effect("tells a missing capability (403) and missing credentials (\"Consumer key is missing.\") apart from a wrong key", () =>
    Effect.gen(function*() {
      const https = { apiUrl: "https://shop.test/wp-json/wc/v3" }
      const forbidden = yield* storeClient(() => json(403, { code: "woocommerce_rest_cannot_view", message: "Sorry, you cannot view this resource." }), https)
      expect(yield* Effect.flip(forbidden.client.list("/settings", {}, Schema.Unknown))).toMatchObject({ reason: "permission", status: 403 })
      const missing = yield* storeClient(() => json(401, { code: "woocommerce_rest_authentication_error", message: "Consumer key is missing." }), https)
      const error = yield* Effect.flip(missing.client.list("/orders", {}, Schema.Unknown))
      expect(error).toMatchObject({ reason: "no-credentials" })
      expect(error.message).toContain("STORE_AUTH=query")
      const wrong = yield* storeClient(() => json(401, { code: "woocommerce_rest_authentication_error", message: "Consumer key is invalid." }), https)
      expect(yield* Effect.flip(wrong.client.list("/orders", {}, Schema.Unknown))).toMatchObject({ reason: "rejected" })
    }))
})

describe("store client: first answers", () => {
  it.effect("an untrusted certificate ends at once, in one line", () =>
    Effect.gen(function*() {
      const { client, sent } = yield* storeClient(() => ({ code: "DEPTH_ZERO_SELF_SIGNED_CERT" }), { apiUrl: "https://shop.test/wp-json/wc/v3" })
      const error = yield* Effect.flip(client.list("/orders", {}, Schema.Unknown))
      expect(error).toMatchObject({ _tag: "StoreTlsFailed", problem: "certificate", code: "DEPTH_ZERO_SELF_SIGNED_CERT" })
      expect(error.message).toContain("NODE_EXTRA_CA_CERTS")
      expect(error.message).not.toMatch(/\n/)
      expect(yield* sent).toHaveLength(1)
    }))

  it.effect("a web page after the store has answered JSON is a hiccup: retried", () =>
    Effect.gen(function*() {
      const page = { status: 200, body: "<html><title>Just a moment</title></html>", headers: { "content-type": "text/html" } }
      const { client, sent } = yield* storeClient((n) => (n === 2 ? page : json(200, [])))
      yield* client.list("/orders", {}, Schema.Unknown)
      const fiber = yield* Effect.fork(client.list("/orders", { page: 2 }, Schema.Unknown))
      yield* TestClock.adjust("1 minute")
      expect((yield* Fiber.join(fiber)).items).toEqual([])
      expect(yield* sent).toHaveLength(3)
    }))
})

describe("STORE_AUTH", () => {
  const load = (entries: Record<string, string>) =>
    Effect.either(storeSettingsConfig).pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ STORE_CONSUMER_KEY: "k", STORE_CONSUMER_SECRET: "s", ...entries }))))
    )

  it.effect("defaults to auto and accepts each choice", () =>
    Effect.gen(function*() {
      const plain = yield* load({ STORE_API_URL: "http://s.test/wp-json/wc/v3" })
      expect(plain._tag === "Right" && plain.right.auth).toBe("auto")
      for (const choice of ["basic", "oauth1", "query", "AUTO"]) {
        const loaded = yield* load({ STORE_API_URL: "https://s.test/wp-json/wc/v3", STORE_AUTH: choice })
        expect(loaded._tag === "Right" && loaded.right.auth).toBe(choice.toLowerCase())
      }
    }))

  it.effect("names the variable and the choices, and refuses query keys over plain HTTP naming the fix", () =>
    Effect.gen(function*() {
      const wrong = yield* load({ STORE_API_URL: "https://s.test/wp-json/wc/v3", STORE_AUTH: "digest" })
      expect(wrong._tag === "Left" && String(wrong.left)).toContain("STORE_AUTH must be one of auto, basic, oauth1, query")
      const query = yield* load({ STORE_API_URL: "http://s.test/wp-json/wc/v3", STORE_AUTH: "query" })
      expect(query._tag === "Left" && String(query.left)).toContain("STORE_AUTH=query sends the consumer key and secret in the URL and needs an https:// STORE_API_URL")
      expect(query._tag === "Left" && String(query.left)).toContain("STORE_AUTH=auto or oauth1")
    }))
})
