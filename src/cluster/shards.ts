import * as EntityId from "@effect/cluster/EntityId"
import * as Sharding from "@effect/cluster/Sharding"
import * as ShardId from "@effect/cluster/ShardId"
import { Effect } from "effect"

/** The shard count of the default group (ShardingConfig's default), which the Store entity uses. */
export const SHARDS = 300

/** How many of the default group's shards this runner holds now (it moves when workers join or leave). */
export const heldShards = Effect.map(Sharding.Sharding, (sharding) =>
  Array.from({ length: SHARDS }, (_, i) => i + 1).filter((i) => sharding.hasShardId(ShardId.make("default", i))).length)

/** Whether this runner holds the shard of the store's entity (so runs its messages). */
export const holdsStore = (storeId: string) =>
  Effect.map(Sharding.Sharding, (sharding) => sharding.hasShardId(sharding.getShardId(EntityId.make(storeId), "default")))
