import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, Option, Redacted, Ref } from "effect"
import { globalValue } from "effect/GlobalValue"
import type { StoreAuth, StoreSettings } from "../config/settings.js"
import type { Answer } from "../http-client/send.js"
import { carriedBy, type Credentials } from "./auth-answer.js"
import { urlName } from "./key-source.js"
import { makeOAuth1Signer } from "./oauth1.js"

/**
 * How `auto` carries the key: HTTP Basic over HTTPS; OAuth 1.0a over plain HTTP from the first request, since Basic
 * there would put the consumer secret on the wire in clear (and WooCommerce does not read it anyway).
 */
export const credentialsFor = (choice: StoreAuth, plainHttp: boolean): Credentials =>
  choice === "auto" ? (plainHttp ? "oauth1" : "basic") : choice

/** What a run over plain HTTP is told once, by how the key travels; explicit oauth1 chose it knowingly. */
const plainHttpWarning = (choice: StoreAuth, how: Credentials, host: string, url: string): string | undefined => {
  if (how === "basic") {
    return `store: STORE_AUTH=basic over plain HTTP sends the consumer key and secret to ${host} in clear on every ` +
      `request, readable by anyone on the path: use the store's https:// address in ${url}, or STORE_AUTH=oauth1 ` +
      "(or auto) to sign requests instead"
  }
  return choice === "auto"
    ? `store: ${host} is plain HTTP, so every request is signed with OAuth 1.0a (the secret never travels). The ` +
      "connection is unencrypted: the consumer key and the store's data travel in clear (use the store's https:// " +
      `address in ${url} if it has one)`
    : undefined
}

/**
 * The plain-HTTP warnings this process has logged, by way and API URL. The store client is built per job, and a worker
 * runs each store's job every few minutes, so the memory must outlive the job: a process-wide set rather than a
 * service, so that every host building a store client (the CLI, serve, a worker, check) shares it without providing
 * anything; globalValue keeps one set even if the module is loaded twice. The CLI runs one job a process: once a run.
 */
const warned = globalValue(Symbol.for("shopsync/store-client/plainHttpWarned"), () => new Set<string>())

/** True the first time `key` is seen in this process. */
const firstTime = (key: string) =>
  Effect.sync(() => {
    if (warned.has(key)) return false
    warned.add(key)
    return true
  })

/**
 * How requests carry the consumer key (STORE_AUTH), and what the store has shown about it. The way is fixed for the
 * process; over plain HTTP the first request logs the warning that fits it (see plainHttpWarning), once per process
 * for each store's URL (a way changed since, STORE_AUTH=basic set, warns again).
 */
export const makeStoreAuth = (settings: StoreSettings) =>
  Effect.gen(function*() {
    const choice = settings.auth ?? "auto"
    const plainHttp = settings.apiUrl.startsWith("http://")
    const how = credentialsFor(choice, plainHttp)
    const basicRead = yield* Ref.make(false)
    const sign = makeOAuth1Signer(settings.consumerKey, settings.consumerSecret)
    const rootPath = new URL(settings.apiUrl).pathname.replace(/\/$/, "")
    const warning = plainHttp ? plainHttpWarning(choice, how, new URL(settings.apiUrl).host, urlName(settings.source)) : undefined
    // On the first request rather than here: a command that never reaches the store has nothing to warn about.
    const warnOnce = warning === undefined ? Effect.void : Effect.whenEffect(Effect.logWarning(warning), firstTime(`${how} ${settings.apiUrl}`))

    const carry = (request: HttpClientRequest.HttpClientRequest) => {
      switch (how) {
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

    /** The request carrying the key; signed afresh each time (a retry needs a new nonce). */
    const authorize = (request: HttpClientRequest.HttpClientRequest) => Effect.zipRight(warnOnce, carry(request))

    // The API root's index is public on WooCommerce: an answer there proves nothing about the key.
    const isRoot = (request: HttpClientRequest.HttpClientRequest) =>
      Option.match(HttpClientRequest.toUrl(request), { onNone: () => false, onSome: (u) => u.pathname.replace(/\/$/, "") === rootPath })

    /** Notes a 2xx answer: Basic read on a route that needs a key proves the store reads Basic from us. */
    const noteSuccess = (answer: Answer) =>
      carriedBy(answer.request) === "basic" && !isRoot(answer.request) ? Ref.set(basicRead, true) : Effect.void

    return { authorize, noteSuccess, basicRead: Ref.get(basicRead), plainHttp }
  })
