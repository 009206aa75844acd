// The Store entity's handling of scheduled syncs on a runner with fewer job slots than stores due: every store's
// turn comes round in the order their messages came, and a slot that a started sync covers is skipped.
import * as Entity from "@effect/cluster/Entity"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Layer, Option } from "effect"
import { StoreDirectory } from "../../src/cluster/store-directory.js"
import { Store, StoreEntityLive } from "../../src/cluster/store-entity.js"

const STORES = ["s1", "s2", "s3", "s4", "s5", "s6"]

/** A directory whose syncs take 30 ms each and are recorded as store:trigger. */
const recording = (ran: Array<string>) =>
  Layer.succeed(StoreDirectory, StoreDirectory.of({
    list: Effect.succeed([]),
    syncStore: (storeId, trigger) =>
      trigger === "interrupted" ? Effect.interrupt :
      trigger === "locked" ? Effect.succeed({ outcome: "skipped_locked" as const, runner: "test", report: "" }) :
      Effect.sleep("30 millis").pipe(
        Effect.zipRight(Effect.sync(() => ran.push(`${storeId}:${trigger}`))),
        Effect.as({ outcome: "succeeded" as const, runner: "test", report: "" })
      ),
    backfillStore: () => Effect.die("not used"),
    pushContacts: () => Effect.void,
    applyDelivery: () => Effect.void
  }))

describe("Store entity: scheduled syncs", () => {
  it.live("under overload runs every store's slot in turn, skips a slot a started sync covers, always runs a manual sync", () =>
    Effect.gen(function*() {
      const ran: Array<string> = []
      const client = yield* Entity.makeTestClient(Store, StoreEntityLive(1).pipe(Layer.provide(recording(ran))))
      const slotOne = yield* Clock.currentTimeMillis
      // One job slot, six stores due at once, each sync 30 ms: the last waits 150 ms, long after a 50 ms slot ended.
      const first = yield* Effect.forEach(STORES, (id) =>
        Effect.flatMap(client(id), (c) => c.SyncNow({ key: "slot-1", slotStartsAt: slotOne })), { concurrency: "unbounded" })
      expect(first.every(Option.isSome)).toBe(true)
      expect(ran).toEqual(STORES.map((id) => `${id}:slot-1`))

      // s1's sync started after slot 1 began: a late copy of slot 1 is covered; slot 2 (begun now) is owed.
      const s1 = yield* client("s1")
      expect(Option.isNone(yield* s1.SyncNow({ key: "slot-1-again", slotStartsAt: slotOne }))).toBe(true)
      const slotTwo = yield* Clock.currentTimeMillis
      expect(Option.isSome(yield* s1.SyncNow({ key: "slot-2", slotStartsAt: slotTwo }))).toBe(true)
      expect(Option.isSome(yield* s1.SyncNow({ key: "manual" }))).toBe(true)
      expect(ran.slice(STORES.length)).toEqual(["s1:slot-2", "s1:manual"])

      // A sync interrupted (its runner lost the shard) covers nothing: the slot's message delivered again runs.
      const slotThree = yield* Clock.currentTimeMillis
      yield* Effect.exit(s1.SyncNow({ key: "interrupted", slotStartsAt: slotThree }))
      expect(Option.isSome(yield* s1.SyncNow({ key: "slot-3", slotStartsAt: slotThree }))).toBe(true)
      expect(ran.at(-1)).toBe("s1:slot-3")

      // A sync skipped on the store's lock (held by a run still closing elsewhere) covers nothing either.
      const slotFour = yield* Clock.currentTimeMillis
      expect(Option.getOrThrow(yield* s1.SyncNow({ key: "locked", slotStartsAt: slotFour })).outcome).toBe("skipped_locked")
      expect(Option.isSome(yield* s1.SyncNow({ key: "slot-4", slotStartsAt: slotFour }))).toBe(true)
      expect(ran.at(-1)).toBe("s1:slot-4")

      // A message of the previous version (an end, no start) whose slot ended is skipped as before.
      expect(Option.isNone(yield* s1.SyncNow({ key: "old", expiresAt: slotOne }))).toBe(true)
    }).pipe(Effect.provide(ShardingConfig.layer()), Effect.scoped))
})
