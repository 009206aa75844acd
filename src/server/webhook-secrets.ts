import { Clock, Context, Effect, Layer, Option, type Redacted, Ref } from "effect"
import { errorText } from "../sync/errors.js"
import { StoreRegistry } from "../stores/registry.js"

/** How long an opened secret is used before the registry is read again (a removed store stops within this). */
const FRESH_MS = 10_000
/** A miss (unknown store, no secret, a signature the cached secret does not match) reads again at most this often per store. */
const MISS_GAP_MS = 1_000

/** What the registry says about a store's webhooks, as of `readAt`. */
export type StoreSecret =
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "NoSecret" }
  | { readonly _tag: "Secret"; readonly secret: Redacted.Redacted<string> }
  | { readonly _tag: "Unreadable"; readonly reason: string }

interface Entry {
  readonly found: StoreSecret
  readonly readAt: number
}

/**
 * The registered stores' webhook secrets, opened with the master key and kept per store for FRESH_MS. `lookup` with
 * `miss` (the caller found the cached answer wanting) reads the registry again unless it did within MISS_GAP_MS, so a
 * store added (or removed and added with a new secret) takes effect at its first delivery, and a flood of forged
 * deliveries costs at most one registry read per store per second.
 */
export class WebhookSecrets extends Context.Tag("shopsync/WebhookSecrets")<WebhookSecrets, {
  readonly lookup: (storeId: string, miss: boolean) => Effect.Effect<StoreSecret>
}>() {}

const readSecret = (registry: StoreRegistry["Type"], storeId: string): Effect.Effect<StoreSecret> =>
  registry.get(storeId).pipe(
    Effect.map((store): StoreSecret => Option.match(store.webhookSecret, { onNone: () => ({ _tag: "NoSecret" }), onSome: (secret) => ({ _tag: "Secret", secret }) })),
    Effect.catchTag("StoreNotRegistered", () => Effect.succeed<StoreSecret>({ _tag: "Unknown" })),
    Effect.catchAll((e) => Effect.succeed<StoreSecret>({ _tag: "Unreadable", reason: errorText(e) }))
  )

export const WebhookSecretsLive = Layer.effect(WebhookSecrets, Effect.gen(function*() {
  const registry = yield* StoreRegistry
  // Not a lock: two deliveries of a store arriving together may both read the registry, which is harmless.
  const cache = yield* Ref.make(new Map<string, Entry>())
  const lookup = (storeId: string, miss: boolean) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const held = (yield* Ref.get(cache)).get(storeId)
      const age = held === undefined ? Infinity : now - held.readAt
      // An unreadable registry is never kept: the next delivery tries again.
      if (held !== undefined && held.found._tag !== "Unreadable" && age < (miss ? MISS_GAP_MS : FRESH_MS)) return held.found
      const found = yield* readSecret(registry, storeId)
      yield* Ref.update(cache, (entries) => {
        const next = new Map(entries)
        if (found._tag === "Unknown") next.delete(storeId)
        else next.set(storeId, { found, readAt: now })
        return next
      })
      return found
    })
  return WebhookSecrets.of({ lookup })
}))
