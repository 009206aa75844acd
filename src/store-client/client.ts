import { Context, Effect, Layer, type Schema } from "effect"
import type { StoreSettings } from "../config/settings.js"
import type { RetryPolicy } from "../http-client/retry.js"
import type { StoreError } from "./errors.js"
import { decodeDocuments, type Page, toPage } from "./page.js"
import { makeGetJson } from "./request.js"
import { type QueryParams, safeUrl } from "./url.js"

export type { Page } from "./page.js"
export type { QueryParams } from "./url.js"

export class StoreClient extends Context.Tag("shopsync/StoreClient")<StoreClient, {
  readonly storeId: string
  readonly perPage: number
  readonly settleSeconds: number
  /** Requests allowed in flight at once (STORE_CONCURRENCY); callers may ask for more, they queue. */
  readonly concurrency: number
  /** GET a list endpoint; 404 is an error like any other. */
  readonly list: {
    /** Each item decoded with `schema`, every field kept; one that does not fit fails with StoreDocumentInvalid. */
    <A, I>(path: string, params: QueryParams, schema: Schema.Schema<A, I>): Effect.Effect<Page<A>, StoreError>
    /** Items as sent, unchecked. */
    (path: string, params?: QueryParams): Effect.Effect<Page, StoreError>
  }
  /** GET one resource (or a report). */
  readonly get: {
    /** The body decoded with `schema`, every field kept. */
    <A, I>(path: string, params: QueryParams, schema: Schema.Schema<A, I>): Effect.Effect<A, StoreError>
    /** The body as sent, unchecked. */
    (path: string, params?: QueryParams): Effect.Effect<unknown, StoreError>
  }
  /** Requests sent so far (retries included), for summaries and benchmarks. */
  readonly requestCount: Effect.Effect<number>
}>() {}

export const makeStoreClient = (settings: StoreSettings, policy: RetryPolicy) =>
  Effect.gen(function*() {
    const { getJson, requestCount } = yield* makeGetJson(settings, policy)

    function list<A, I>(path: string, params: QueryParams, schema: Schema.Schema<A, I>): Effect.Effect<Page<A>, StoreError>
    function list(path: string, params?: QueryParams): Effect.Effect<Page, StoreError>
    function list<A, I>(path: string, params: QueryParams = {}, schema?: Schema.Schema<A, I>) {
      const page = Effect.flatMap(getJson(path, params), (answer) => toPage(answer, safeUrl(settings.apiUrl + path)))
      if (!schema) return page
      const decode = decodeDocuments(schema, path)
      return Effect.flatMap(page, (p) => Effect.map(decode(p.items), (items): Page<A> => ({ ...p, items })))
    }

    function get<A, I>(path: string, params: QueryParams, schema: Schema.Schema<A, I>): Effect.Effect<A, StoreError>
    function get(path: string, params?: QueryParams): Effect.Effect<unknown, StoreError>
    function get<A, I>(path: string, params: QueryParams = {}, schema?: Schema.Schema<A, I>) {
      const body = Effect.map(getJson(path, params), (answer) => answer.body)
      if (!schema) return body
      const decode = decodeDocuments(schema, path)
      return Effect.flatMap(body, (doc) => Effect.map(decode([doc]), ([decoded]) => decoded!))
    }

    return StoreClient.of({
      storeId: settings.storeId,
      perPage: settings.perPage,
      settleSeconds: settings.settleSeconds,
      concurrency: settings.concurrency,
      list,
      get,
      requestCount
    })
  })

export const defaultRetryPolicy = (settings: StoreSettings): RetryPolicy => ({
  maxAttempts: settings.maxAttempts,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: settings.requestTimeoutMs
})

export const StoreClientLive = (settings: StoreSettings, policy: RetryPolicy = defaultRetryPolicy(settings)) =>
  Layer.effect(StoreClient, makeStoreClient(settings, policy))
