import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, Ref } from "effect"
import type { StoreSettings } from "../config/settings.js"
import { makeAdaptiveLimit } from "../http-client/adaptive-limit.js"
import { HttpClients } from "../http-client/clients.js"
import { type RetryPolicy, retrySchedule } from "../http-client/retry.js"
import { type Answer, send } from "../http-client/send.js"
import { requestSpans } from "../http-client/spans.js"
import { USER_AGENT } from "../http-client/user-agent.js"
import { type AttemptFailure, giveUp, isTransient, isUsable, judge } from "./answers.js"
import { makeStoreAuth } from "./auth.js"
import type { StoreError } from "./errors.js"
import { type QueryParams, requestUrl, safeUrl } from "./url.js"

/** A request that changes something (the webhooks resource): its method and JSON body. */
export interface Write {
  readonly method: "POST" | "PUT" | "DELETE"
  readonly body?: unknown
}

const writeRequest = (write: Write | undefined, url: string) => {
  const request = HttpClientRequest.make(write?.method ?? "GET")(url).pipe(HttpClientRequest.acceptJson, HttpClientRequest.setHeader("user-agent", USER_AGENT))
  return write?.body === undefined ? request : HttpClientRequest.bodyUnsafeJson(request, write.body)
}

/** Requests in flight before the store has said anything: a shared host's few, not a dedicated server's many. */
const START_CONCURRENCY = 2

/**
 * What the adaptive limit compares a request's latency with: requests of the same route (ids left out), page size
 * and fields. A page of 100 orders takes a real shop four times a `per_page=1` listing's time, whatever the load.
 */
const requestKind = (method: string, path: string, params: QueryParams) =>
  `${method} ${path.replace(/\/\d+(?=\/|$)/g, "/:id")} per_page=${params["per_page"] ?? ""} _fields=${params["_fields"] ?? ""}`

/**
 * GETs (and the few writes) below the API root with the consumer key, paced by the adaptive limit (at most
 * `concurrency` in flight, `maxRps` a second), each retried on the shared schedule. Returns the JSON answer, or the
 * store error that explains why there is none.
 */
export const makeGetJson = (settings: StoreSettings, policy: RetryPolicy) =>
  Effect.gen(function*() {
    const auth = yield* makeStoreAuth(settings)
    const http = (yield* HttpClients).within(policy.timeoutMs)
    const requests = yield* Ref.make(0)
    const jsonSeen = yield* Ref.make(false)
    // Paces the exchange itself (not the parse, nor a retry's wait): what the store sees. Signing happens
    // inside, so a request that waited for its turn does not carry a stale timestamp.
    const limit = yield* makeAdaptiveLimit({
      service: "store",
      maxConcurrency: settings.concurrency,
      startConcurrency: START_CONCURRENCY,
      maxRps: settings.maxRps,
      adaptive: settings.concurrencyMode !== "fixed"
    })

    const exchange = (write: Write | undefined, url: string, kind: string) =>
      limit.run(Effect.flatMap(auth.authorize(writeRequest(write, url)), (request) =>
        Ref.update(requests, (n) => n + 1).pipe(Effect.zipRight(send(http, request)))), kind)

    // What the process has learnt of the store is read only for an answer that needs judging.
    const judged = (answer: Answer, shown: string) =>
      isUsable(answer) ? Effect.succeed(answer) : Effect.flatMap(Effect.all([auth.basicRead, Ref.get(jsonSeen)]), ([basicRead, seen]) =>
        judge(answer, { apiUrl: settings.apiUrl, shown, plainHttp: auth.plainHttp, basicRead, jsonSeen: seen, source: settings.source }))

    const attempt = (write: Write | undefined, url: string, shown: string, kind: string): Effect.Effect<Answer, AttemptFailure> =>
      exchange(write, url, kind).pipe(
        Effect.flatMap((answer) => judged(answer, shown)),
        Effect.tap((answer) => Effect.zipRight(Ref.set(jsonSeen, true), auth.noteSuccess(answer)))
      )

    const requestJson = (write: Write | undefined, path: string, params: QueryParams = {}): Effect.Effect<Answer, StoreError> => {
      const url = requestUrl(settings.apiUrl, path, params)
      const shown = safeUrl(url)
      const method = write?.method ?? "GET"
      const schedule = retrySchedule<AttemptFailure>(policy, { service: "store", label: `${method} ${shown}`, transient: isTransient })
      return requestSpans("store", method, shown)(attempt(write, url, shown, requestKind(method, path, params)), (tried) =>
        Effect.retryOrElse(tried, schedule, (e, attempts) => Effect.fail(giveUp(e, attempts, shown, method, settings.source, safeUrl(settings.apiUrl)))))
    }

    const getJson = (path: string, params: QueryParams = {}) => requestJson(undefined, path, params)
    const sendJson = (write: Write, path: string, params: QueryParams = {}) => requestJson(write, path, params)

    return { getJson, sendJson, requestCount: Ref.get(requests), logPace: limit.logSummary }
  })
