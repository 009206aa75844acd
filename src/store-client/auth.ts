import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, Option, Redacted, Ref } from "effect"
import type { StoreSettings } from "../config/settings.js"
import type { Answer } from "../http-client/send.js"
import { carriedBy, type Credentials } from "./auth-answer.js"
import { makeOAuth1Signer } from "./oauth1.js"

/**
 * How requests carry the consumer key (STORE_AUTH), and what the store has shown about it. `auto` starts with
 * HTTP Basic; over plain HTTP a request whose Basic the store did not read is signed with OAuth 1.0a instead, and
 * once a signed request succeeds every later one is signed (see request.ts).
 */
export const makeStoreAuth = (settings: StoreSettings) =>
  Effect.gen(function*() {
    const choice = settings.auth ?? "auto"
    const plainHttp = settings.apiUrl.startsWith("http://")
    const mode = yield* Ref.make<Credentials>(choice === "auto" ? "basic" : choice)
    const basicRead = yield* Ref.make(false)
    const sign = makeOAuth1Signer(settings.consumerKey, settings.consumerSecret)
    const rootPath = new URL(settings.apiUrl).pathname.replace(/\/$/, "")

    const carry = (request: HttpClientRequest.HttpClientRequest, as: Credentials) => {
      switch (as) {
        case "basic":
          return Effect.succeed(HttpClientRequest.basicAuth(request, settings.consumerKey, settings.consumerSecret))
        case "query":
          return Effect.succeed(HttpClientRequest.appendUrlParams(request, {
            consumer_key: Redacted.value(settings.consumerKey),
            consumer_secret: Redacted.value(settings.consumerSecret)
          }))
        case "oauth1":
          return sign(request)
      }
    }

    /** The request carrying the key as `as` says, or as the process currently does; signed afresh each time. */
    const authorize = (request: HttpClientRequest.HttpClientRequest, as?: Credentials) =>
      Effect.flatMap(as ? Effect.succeed(as) : Ref.get(mode), (how) => carry(request, how))

    // The API root's index is public on WooCommerce: an answer there proves nothing about the key.
    const isRoot = (request: HttpClientRequest.HttpClientRequest) =>
      Option.match(HttpClientRequest.toUrl(request), { onNone: () => false, onSome: (u) => u.pathname.replace(/\/$/, "") === rootPath })

    /** Notes a 2xx answer: Basic read on a route that needs a key proves the store reads Basic from us. */
    const noteSuccess = (answer: Answer) =>
      carriedBy(answer.request) === "basic" && !isRoot(answer.request) ? Ref.set(basicRead, true) : Effect.void

    /** Signed requests work where Basic was not read: sign every later request; the first switch warns. */
    const switchToOAuth = Effect.flatMap(Ref.getAndSet(mode, "oauth1"), (was) =>
      was === "oauth1" ? Effect.void : Effect.logWarning(
        `store: ${new URL(settings.apiUrl).host} does not read HTTP Basic over plain HTTP; signing every request with ` +
          "OAuth 1.0a from now on. The connection is unencrypted: the consumer key and the store's data travel in clear " +
          "(use the store's https:// address in STORE_API_URL if it has one)"
      ))

    return {
      authorize,
      noteSuccess,
      switchToOAuth,
      basicRead: Ref.get(basicRead),
      plainHttp,
      /** auto over plain HTTP: a request whose Basic the store did not read is worth signing. */
      maySign: choice === "auto" && plainHttp
    }
  })
