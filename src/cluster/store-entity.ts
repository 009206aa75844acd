import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import { Clock, Effect, Layer, Option, Schema } from "effect"
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
    payload: { ...keyed, expiresAt: Schema.optional(Schema.Number) }, primaryKey, success: Schema.OptionFromNullOr(StoreRunDone), error: StoreWorkFailed
  }),
  Rpc.make("Backfill", { payload: { ...keyed, since: IsoDate, until: Schema.optional(IsoDate) }, primaryKey, success: StoreRunDone, error: StoreWorkFailed }),
  Rpc.make("PushContacts", { payload: keyed, primaryKey, error: StoreWorkFailed }),
  Rpc.make("ApplyDelivery", { payload: { ...keyed, deliveryId: Schema.String }, primaryKey, error: StoreWorkFailed })
]).annotateRpcs(ClusterSchema.Persisted, true)

/**
 * A scheduled SyncNow whose slot has ended is skipped: messages queued while the store's runner was dead (or while a
 * long sync ran) would otherwise run back to back when they are delivered; the newest slot's message covers them.
 * A manual SyncNow has no `expiresAt` and always runs.
 */
const syncUnlessStale = (
  directory: StoreDirectory["Type"],
  storeId: string,
  payload: { readonly key: string; readonly expiresAt?: number | undefined }
) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    if (payload.expiresAt !== undefined && now > payload.expiresAt) {
      yield* Effect.logInfo(`store ${storeId}: skipped ${payload.key}, its interval ended while it waited`)
      return Option.none<StoreRunDone>()
    }
    return Option.some(yield* directory.syncStore(storeId, payload.key))
  })

/** A failure is logged where it happened: the schedule sends with `discard`, so no sender reads the reply. */
const logged = <A>(key: string, work: Effect.Effect<A, StoreWorkFailed>) =>
  Effect.tapError(work, (e) => Effect.logWarning(`store ${e.storeId}: ${key} failed: ${e.message}`))

/** How long a store's entity stays in memory after its last message (it holds nothing worth keeping). */
const IDLE = "2 minutes"

/**
 * The Store entity's handlers on this runner: each hands the work to the directory, at most `concurrency` jobs at once
 * across the runner's stores (a sync holds warehouse connections for its whole run: the pool is sized from this).
 * The staleness check runs once a permit is held, so a slot that ended in the queue is skipped. Webhook deliveries
 * have permits of their own (as many): applying one takes a connection for a moment, and it should not wait for
 * other stores' syncs to end (a store's own messages still run one at a time).
 */
export const StoreEntityLive = (concurrency: number) =>
  Layer.unwrapEffect(Effect.map(Effect.all([Effect.makeSemaphore(concurrency), Effect.makeSemaphore(concurrency)]), ([permits, deliveryPermits]) =>
    Store.toLayer(
      Effect.gen(function*() {
        const directory = yield* StoreDirectory
        const storeId = (yield* Entity.CurrentAddress).entityId
        const run = <A>(key: string, work: Effect.Effect<A, StoreWorkFailed>) => permits.withPermits(1)(logged(key, work))
        return Store.of({
          SyncNow: ({ payload }) => run(payload.key, syncUnlessStale(directory, storeId, payload)),
          Backfill: ({ payload }) => run(payload.key, directory.backfillStore(storeId, { since: payload.since, until: payload.until })),
          PushContacts: ({ payload }) => run(payload.key, directory.pushContacts(storeId)),
          ApplyDelivery: ({ payload }) => deliveryPermits.withPermits(1)(logged(payload.key, directory.applyDelivery(storeId, payload.deliveryId)))
        })
      }),
      { maxIdleTime: IDLE }
    )))
