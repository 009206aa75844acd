import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import { Cause, Clock, Effect, Exit, Layer, Option, Schema } from "effect"
import { StoreDirectory, StoreRunDone, StoreWorkFailed } from "./store-directory.js"

const IsoDate = Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}$/))

/**
 * Every message carries `key`, its primary key: the message storage keeps one message per (store, tag, key) for good
 * (a second send with the same key is a duplicate and is dropped), so a retried send never runs work twice and the
 * schedule can send the same slot's SyncNow from every tick. A sender wanting new work uses a new key.
 */
const keyed = { key: Schema.String }
const primaryKey = (p: { readonly key: string }) => p.key

/**
 * A store as a cluster entity, addressed by its store id: the shard its id hashes to lives on exactly one runner at a
 * time, and that runner handles the store's messages one at a time (entity concurrency 1), so two syncs of a store
 * never overlap while the shard locks hold.
 *
 * Every message is persisted (in cluster_messages): sent to a runner that dies, it waits in PostgreSQL and runs on the
 * runner that takes the shard over; one that was running when its runner died runs again there (at least once: the
 * sync's own lease and cursors make a second run safe).
 */
export const Store = Entity.make("Store", [
  Rpc.make("SyncNow", {
    payload: {
      ...keyed,
      /** A scheduled sync: when its slot began (epoch ms). A manual one has none. */
      slotStartsAt: Schema.optional(Schema.Number),
      /** Sent by versions before slotStartsAt: when the slot ended. */
      expiresAt: Schema.optional(Schema.Number)
    },
    primaryKey,
    success: Schema.OptionFromNullOr(StoreRunDone),
    error: StoreWorkFailed
  }),
  Rpc.make("Backfill", { payload: { ...keyed, since: IsoDate, until: Schema.optional(IsoDate) }, primaryKey, success: StoreRunDone, error: StoreWorkFailed }),
  Rpc.make("PushContacts", { payload: keyed, primaryKey, error: StoreWorkFailed }),
  Rpc.make("ApplyDelivery", { payload: { ...keyed, deliveryId: Schema.String }, primaryKey, error: StoreWorkFailed })
]).annotateRpcs(ClusterSchema.Persisted, true)

type SyncPayload = { readonly key: string; readonly slotStartsAt?: number | undefined; readonly expiresAt?: number | undefined }

/**
 * Why a scheduled SyncNow is skipped, or undefined when it runs: one is skipped when a sync of the store that started
 * after its slot began has ended (that run saw everything the slot asks for; one that failed is retried next slot). Messages queued while the store's runner was dead or
 * while a long sync ran then cost one run, not one each. A message that merely waited (for a permit, when the runner
 * has more stores due than job slots) still runs, in the order the messages came: under overload every store's turn
 * comes round, rather than the first stores of each sweep taking every slot while the others' slots lapse.
 */
export const skipReason = (payload: SyncPayload, lastStartedAt: number | undefined, now: number): string | undefined => {
  if (payload.slotStartsAt !== undefined) {
    return lastStartedAt !== undefined && lastStartedAt >= payload.slotStartsAt ? "a sync that started since its slot began, and ended, covers it" : undefined
  }
  return payload.expiresAt !== undefined && now > payload.expiresAt ? "its interval ended while it waited" : undefined
}

/**
 * Whether an ended sync covers its slot: one that ran (done or failed) does. One interrupted (its runner lost the
 * shard) does not, and the message delivered again runs; nor does one skipped on the store's lock: the holder may be a
 * run interrupted on another runner that is still closing, and its slot would otherwise wait for the next.
 */
const covers = (exit: Exit.Exit<StoreRunDone, StoreWorkFailed>) =>
  Exit.isSuccess(exit) ? exit.value.outcome !== "skipped_locked" : !Cause.isInterruptedOnly(exit.cause)

/** A manual SyncNow always runs; a scheduled one unless skipReason says otherwise. Records when the store's ended sync started. */
const syncUnlessCovered = (
  directory: StoreDirectory["Type"],
  started: Map<string, number>,
  storeId: string,
  payload: SyncPayload
) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const reason = skipReason(payload, started.get(storeId), now)
    if (reason !== undefined) {
      yield* Effect.logInfo(`store ${storeId}: skipped ${payload.key}: ${reason}`)
      return Option.none<StoreRunDone>()
    }
    const done = directory.syncStore(storeId, payload.key).pipe(
      Effect.onExit((exit) => covers(exit) ? Effect.sync(() => started.set(storeId, now)) : Effect.void)
    )
    return Option.some(yield* done)
  })

/** A failure is logged where it happened: the schedule sends with `discard`, so no sender reads the reply. */
const logged = <A>(key: string, work: Effect.Effect<A, StoreWorkFailed>) =>
  Effect.tapError(work, (e) => Effect.logWarning(`store ${e.storeId}: ${key} failed: ${e.message}`))

/** How long a store's entity stays in memory after its last message (it holds nothing worth keeping). */
const IDLE = "2 minutes"

/**
 * The Store entity's handlers on this runner: each hands the work to the directory, at most `concurrency` jobs at once
 * across the runner's stores (a sync holds warehouse connections for its whole run: the pool is sized from this).
 * Whether a scheduled sync is still owed is decided once a permit is held (skipReason). Webhook deliveries
 * have permits of their own (as many): applying one takes a connection for a moment, and it should not wait for
 * other stores' syncs to end (a store's own messages still run one at a time).
 */
export const StoreEntityLive = (concurrency: number) =>
  Layer.unwrapEffect(Effect.map(Effect.all([Effect.makeSemaphore(concurrency), Effect.makeSemaphore(concurrency)]), ([permits, deliveryPermits]) => {
    /** When each store's last sync on this runner started; a store that moved here starts unknown (its first message runs). */
    const started = new Map<string, number>()
    return Store.toLayer(
      Effect.gen(function*() {
        const directory = yield* StoreDirectory
        const storeId = (yield* Entity.CurrentAddress).entityId
        const run = <A>(key: string, work: Effect.Effect<A, StoreWorkFailed>) => permits.withPermits(1)(logged(key, work))
        return Store.of({
          SyncNow: ({ payload }) => run(payload.key, syncUnlessCovered(directory, started, storeId, payload)),
          Backfill: ({ payload }) => run(payload.key, directory.backfillStore(storeId, { since: payload.since, until: payload.until })),
          PushContacts: ({ payload }) => run(payload.key, directory.pushContacts(storeId)),
          ApplyDelivery: ({ payload }) => deliveryPermits.withPermits(1)(logged(payload.key, directory.applyDelivery(storeId, payload.deliveryId)))
        })
      }),
      { maxIdleTime: IDLE }
    )
  }))
