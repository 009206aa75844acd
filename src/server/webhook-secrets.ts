import { Clock, Effect, Either, Option, type Redacted, Ref } from "effect"
import { errorText } from "../sync/errors.js"
import { StoreRegistry } from "../stores/registry.js"

/** How long a read of the registry answers (a removed store stops within this, an added one starts within it). */
const FRESH_MS = 10_000
/** A signature the held secret refuses has the registry read again, at most this often (a secret just changed). */
const MISS_GAP_MS = 1_000

/** What the registry says about a store's webhooks. */
export type StoreSecret =
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "NoSecret" }
  | { readonly _tag: "Secret"; readonly secret: Redacted.Redacted<string> }
  | { readonly _tag: "Unreadable"; readonly reason: string }

const UNKNOWN: StoreSecret = { _tag: "Unknown" }

/** The whole registry's secrets as read at `readAt`: an id not in it is unknown until the next read. */
interface Snapshot {
  readonly stores: ReadonlyMap<string, StoreSecret>
  readonly readAt: number
}

const readAll = (registry: StoreRegistry, now: number): Effect.Effect<Either.Either<Snapshot, string>> =>
  registry.webhookSecrets.pipe(
    Effect.map((secrets) => {
      const stores = new Map<string, StoreSecret>()
      for (const [storeId, opened] of secrets) {
        stores.set(storeId, Either.match(opened, {
          onLeft: (e): StoreSecret => ({ _tag: "Unreadable", reason: errorText(e) }),
          onRight: (secret) => Option.match(secret, { onNone: (): StoreSecret => ({ _tag: "NoSecret" }), onSome: (s) => ({ _tag: "Secret", secret: s }) })
        }))
      }
      return Either.right<Snapshot>({ stores, readAt: now })
    }),
    Effect.catchAll((e) => Effect.succeed(Either.left(errorText(e))))
  )

/**
 * The registered stores' webhook secrets, opened with the master key. The whole registry is read in one query and
 * kept FRESH_MS, so unknown ids are answered from it too: a flood of random store ids costs one registry read per
 * FRESH_MS, not one per id. `lookup` with `miss` (the held secret refused a signature) reads again unless the last
 * read is under MISS_GAP_MS old, so a store removed and added with a new secret is taken at its next delivery.
 */
export class WebhookSecrets extends Effect.Service<WebhookSecrets>()("shopsync/WebhookSecrets", {
  effect: Effect.gen(function*() {
    const registry = yield* StoreRegistry
    const held = yield* Ref.make<Snapshot | undefined>(undefined)
    // One read at a time: deliveries arriving together when the snapshot expires wait for one read, not make many.
    const reading = yield* Effect.makeSemaphore(1)
    const current = (maxAge: number) =>
      Effect.map(Effect.all([Ref.get(held), Clock.currentTimeMillis]), ([snapshot, now]) =>
        snapshot !== undefined && now - snapshot.readAt < maxAge ? snapshot : undefined)
    /** The registry as read under `maxAge` ago, or read now; Left: why it could not be read (not kept: the next delivery tries again). */
    const snapshot = (maxAge: number) =>
      Effect.flatMap(current(maxAge), (fresh) =>
        fresh !== undefined ? Effect.succeed(Either.right<Snapshot>(fresh)) : reading.withPermits(1)(Effect.gen(function*() {
          const again = yield* current(maxAge)
          if (again !== undefined) return Either.right<Snapshot>(again)
          const read = yield* readAll(registry, yield* Clock.currentTimeMillis)
          if (Either.isRight(read)) yield* Ref.set(held, read.right)
          return read
        })))
    const lookup = (storeId: string, miss: boolean) =>
      Effect.map(snapshot(miss ? MISS_GAP_MS : FRESH_MS), Either.match({
        onLeft: (reason): StoreSecret => ({ _tag: "Unreadable", reason }),
        onRight: (read) => read.stores.get(storeId) ?? UNKNOWN
      }))
    return { lookup }
  }),
  dependencies: [StoreRegistry.Default]
}) {}
