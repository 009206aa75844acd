import * as Singleton from "@effect/cluster/Singleton"
import { Clock, Duration, Effect, Schedule } from "effect"
import { type ScheduledStore, StoreDirectory } from "./store-directory.js"
import { Store } from "./store-entity.js"

/** FNV-1a: a stable spread of store ids over an interval, the same on every runner. */
const hash = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0
  return h
}

/**
 * The store's current sync slot: its key and when it began. Time is cut into intervals of the store's `every`, shifted by a hash of
 * its id so that a thousand stores on 5 minutes do not all fire on the same second. The key names the interval too:
 * a changed interval starts a new series instead of colliding with the old one.
 */
export const currentSlot = (store: ScheduledStore, nowMs: number): { readonly key: string; readonly startsAt: number } => {
  const everyMs = Math.max(1000, Duration.toMillis(store.every))
  const offset = hash(store.storeId) % everyMs
  const slot = Math.floor((nowMs + offset) / everyMs)
  return { key: `every-${everyMs}-slot-${slot}`, startsAt: slot * everyMs - offset }
}

/**
 * One sweep: a SyncNow for every enabled store whose current slot was not sent yet. The message's key is the slot,
 * so a slot sent twice (by this sweep after a restart, or by the previous holder of the singleton just before it
 * died) is stored once and runs once: each store's sync fires once per its interval, cluster-wide.
 */
const sweep = (sent: Map<string, string>) =>
  Effect.gen(function*() {
    const directory = yield* StoreDirectory
    const client = yield* Store.client
    const now = yield* Clock.currentTimeMillis
    const stores = yield* directory.list
    const due = stores.filter((s) => s.enabled && sent.get(s.storeId) !== currentSlot(s, now).key)
    yield* Effect.forEach(due, (store) => {
      const { key, startsAt } = currentSlot(store, now)
      return client(store.storeId).SyncNow({ key, slotStartsAt: startsAt }, { discard: true }).pipe(
        Effect.tap(() => Effect.sync(() => sent.set(store.storeId, key)))
      )
    }, { concurrency: 8, discard: true })
    // A removed store's entry goes too, so the map never outgrows the registry.
    const known = new Set(stores.map((s) => s.storeId))
    for (const id of sent.keys()) if (!known.has(id)) sent.delete(id)
  })

/**
 * The per-store schedule: one cluster singleton (it runs on exactly one runner; when that runner dies it starts on
 * the one that takes its shard) that sweeps the directory every `tick`. Chosen over a ClusterCron per store (crons
 * are fixed when the layer is built, stores come and go at run time) and over a timer inside each entity (an idle
 * entity is not in memory, and after a failover nothing would wake it): the registry stays the one truth of which
 * stores sync how often, and pausing, resuming or removing a store takes effect at the next tick.
 */
export const StoreScheduleLive = (tick: Duration.DurationInput) =>
  Singleton.make(
    "shopsync/StoreSchedule",
    Effect.gen(function*() {
      const sent = new Map<string, string>()
      yield* sweep(sent).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("store schedule: sweep failed, next tick retries", cause)),
        Effect.repeat(Schedule.spaced(tick))
      )
    })
  )
