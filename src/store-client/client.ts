import { Context, Effect, Layer, type LogLevel, type Schema } from "effect"
import type { StoreSettings } from "../config/settings.js"
import type { RetryPolicy } from "../http-client/retry.js"
import type { StoreError } from "./errors.js"
import { decodeDocuments, type Page, toPage } from "./page.js"
import { makeGetJson, type Write } from "./request.js"
import { type QueryParams, safeUrl } from "./url.js"

export type { Page } from "./page.js"
export type { QueryParams } from "./url.js"
export type { Write } from "./request.js"

export class StoreClient extends Context.Tag("shopsync/StoreClient")<StoreClient, {
  readonly storeId: string
  readonly perPage: number
  readonly settleSeconds: number
  /**
   * The most requests in flight at once (STORE_CONCURRENCY): callers may send this many together; the adaptive
   * limit lets through what the store sustains, the rest queue.
   */
  readonly concurrency: number
  /**
   * GET a list endpoint, each item decoded with `schema`, every field kept (the warehouse stores documents whole);
   * one that does not fit fails with StoreDocumentInvalid. 404 is an error like any other.
   */
  readonly list: <A>(path: string, params: QueryParams, schema: Schema.Schema<A>) => Effect.Effect<Page<A>, StoreError>
  /** GET one resource (or a report), decoded with `schema`, every field kept. */
  readonly get: <A>(path: string, params: QueryParams, schema: Schema.Schema<A>) => Effect.Effect<A, StoreError>
  /** POST, PUT or DELETE with a JSON body (the webhooks resource), the answer decoded with `schema`. */
  readonly send: <A>(write: Write, path: string, params: QueryParams, schema: Schema.Schema<A>) => Effect.Effect<A, StoreError>
  /** Requests sent so far (retries included), for summaries and benchmarks. */
  readonly requestCount: Effect.Effect<number>
  /**
   * Logs the pace since the last call (requests per second, the concurrency settled at, 429s): at info when the store
   * held requests back, else at `calm`.
   */
  readonly logPace: (calm: LogLevel.LogLevel) => Effect.Effect<void>
}>() {}

export const makeStoreClient = (settings: StoreSettings, policy: RetryPolicy) =>
  Effect.gen(function*() {
    const { getJson, sendJson, requestCount, logPace } = yield* makeGetJson(settings, policy)

    const list = <A>(path: string, params: QueryParams, schema: Schema.Schema<A>) => {
      const decode = decodeDocuments(schema, path)
      return getJson(path, params).pipe(
        Effect.flatMap((answer) => toPage(answer, safeUrl(settings.apiUrl + path))),
        Effect.flatMap((p) => Effect.map(decode(p.items), (items): Page<A> => ({ ...p, items })))
      )
    }

    const get = <A>(path: string, params: QueryParams, schema: Schema.Schema<A>) => {
      const decode = decodeDocuments(schema, path)
      return Effect.flatMap(getJson(path, params), (answer) => Effect.map(decode([answer.body]), ([decoded]) => decoded!))
    }

    const send = <A>(write: Write, path: string, params: QueryParams, schema: Schema.Schema<A>) => {
      const decode = decodeDocuments(schema, path)
      return Effect.flatMap(sendJson(write, path, params), (answer) => Effect.map(decode([answer.body]), ([decoded]) => decoded!))
    }

    return StoreClient.of({
      storeId: settings.storeId,
      perPage: settings.perPage,
      settleSeconds: settings.settleSeconds,
      concurrency: settings.concurrency,
      list,
      get,
      send,
      requestCount,
      logPace
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
