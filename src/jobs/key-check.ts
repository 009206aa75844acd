import { Data, Effect, type Redacted, Schema } from "effect"
import { queryAuthNeedsHttps, type StoreSettings, storeTuningConfig } from "../config/settings.js"
import { HttpClientsLive } from "../http-client/clients.js"
import { StoreClient, StoreClientLive } from "../store-client/client.js"
import type { StoreError } from "../store-client/errors.js"

/** The address and key `stores add` or `stores set` is about to save. */
export interface KeyToCheck {
  readonly storeId: string
  readonly apiUrl: string
  readonly consumerKey: Redacted.Redacted<string>
  readonly consumerSecret: Redacted.Redacted<string>
}

/** The store refused the address or key given: nothing was saved. */
export class StoreKeyRefused extends Data.TaggedError("StoreKeyRefused")<{
  readonly storeId: string
  readonly refusal: StoreError
  readonly saving: "add" | "set"
}> {
  override get message() {
    return `${this.refusal.message}. Nothing was saved: \`shopsync stores ${this.saving} ${this.storeId}\` with --no-check ` +
      "saves without trying the key (a store that is down for now)"
  }
}

/** STORE_AUTH=query over plain http: refused before any request, as a sync would refuse it. */
export class QueryAuthOverHttp extends Data.TaggedError("QueryAuthOverHttp")<{ readonly storeId: string }> {
  override get message() {
    return `STORE_AUTH=query sends the consumer key and secret in the URL, and store ${this.storeId}'s --url is plain http: ` +
      "use STORE_AUTH=auto or oauth1"
  }
}

/** A check answers within seconds: two attempts, a short timeout (a sync retries far longer). */
const quickPolicy = (settings: StoreSettings) => ({ maxAttempts: 2, baseDelayMs: 200, maxDelayMs: 1_000, timeoutMs: Math.min(settings.requestTimeoutMs, 15_000) })

/**
 * Tries the address and key with one cheap authenticated request (GET /orders?per_page=1), with the STORE_AUTH and
 * timeouts a sync of the store would use: a wrong key or URL fails with the store client's own error, naming the
 * command's options.
 */
export const checkStoreKey = (key: KeyToCheck, saving: "add" | "set") =>
  Effect.gen(function*() {
    const settings: StoreSettings = { ...key, ...yield* storeTuningConfig, source: "options" }
    if (!queryAuthNeedsHttps(settings)) return yield* new QueryAuthOverHttp({ storeId: key.storeId })
    yield* Effect.flatMap(StoreClient, (client) => client.get("/orders", { per_page: 1 }, Schema.Unknown)).pipe(
      Effect.provide(StoreClientLive(settings, quickPolicy(settings))),
      Effect.provide(HttpClientsLive),
      Effect.mapError((refusal) => new StoreKeyRefused({ storeId: key.storeId, refusal, saving }))
    )
  })
