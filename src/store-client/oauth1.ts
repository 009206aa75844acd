import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { createHmac } from "node:crypto"
import OAuth from "oauth-1.0a"
import { Clock, Effect, Option, Random, Redacted } from "effect"

const NONCE_CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/** Eight characters from a draw below 2^53: its last eight base-62 digits. */
const eightCharacters = (draw: number) => {
  let text = ""
  for (let i = 0, n = draw; i < 8; i++, n = Math.floor(n / 62)) text += NONCE_CHARACTERS[n % 62]
  return text
}

/**
 * 32 characters from four of Effect's Random draws, so a test can fix them. A draw a character (32) was a hundred-odd
 * Effect operations of every request.
 */
const nonce = Effect.map(Effect.all([Random.nextInt, Random.nextInt, Random.nextInt, Random.nextInt]), (draws) => draws.map(eightCharacters).join(""))

/**
 * OAuth 1.0a one-legged signing as WooCommerce verifies it over plain HTTP: HMAC-SHA256 over the method, the URL
 * without its query and the sorted parameters, keyed with `consumer_secret&`; the oauth_* parameters travel in the
 * query string. The library is the one WooCommerce's own JavaScript client signs with; the timestamp and nonce come
 * from Effect's Clock and Random, fresh for every request (and every retry: the store refuses a nonce it has seen).
 */
export const makeOAuth1Signer = (consumerKey: Redacted.Redacted<string>, consumerSecret: Redacted.Redacted<string>) => {
  const oauth = new OAuth({
    consumer: { key: Redacted.value(consumerKey), secret: Redacted.value(consumerSecret) },
    signature_method: "HMAC-SHA256",
    hash_function: (base, key) => createHmac("sha256", key).update(base).digest("base64")
  })
  return (request: HttpClientRequest.HttpClientRequest): Effect.Effect<HttpClientRequest.HttpClientRequest> =>
    Effect.gen(function*() {
      const url = Option.getOrThrow(HttpClientRequest.toUrl(request))
      const data: OAuth.Data = {
        oauth_consumer_key: oauth.consumer.key,
        oauth_nonce: yield* nonce,
        oauth_signature_method: "HMAC-SHA256",
        oauth_timestamp: Math.floor((yield* Clock.currentTimeMillis) / 1000),
        oauth_version: "1.0"
      }
      // The query goes in as decoded pairs: the library would read `+` in a URL as a plus, the store as a space.
      const signed = { url: `${url.origin}${url.pathname}`, method: request.method, data: Object.fromEntries(url.searchParams) }
      // The library merges the query into the object it is given: it gets a copy.
      const oauth_signature = oauth.getSignature(signed, undefined, { ...data })
      return HttpClientRequest.appendUrlParams(request, { ...data, oauth_signature })
    })
}
