import { Command } from "@effect/cli"
import * as Sharding from "@effect/cluster/Sharding"
import * as ShardId from "@effect/cluster/ShardId"
import { Data, Effect, Layer, Option, Schedule } from "effect"
import { workerLayer, workerPools } from "../cluster/worker.js"
import { databaseUrlConfig, runnerSettingsConfig } from "../config/settings.js"
import { RegistryDirectoryLive } from "../stores/directory.js"
import { loadMasterKey } from "../stores/master-key.js"
import { StoreRegistryLive } from "../stores/registry.js"
import { describeDatabase } from "../warehouse/database.js"
import { migrate } from "../warehouse/migrate.js"

export class WorkerNeedsSharedDatabase extends Data.TaggedError("WorkerNeedsSharedDatabase")<{}> {
  override get message() {
    return "shopsync worker needs DATABASE_URL, the PostgreSQL every worker shares: the workers coordinate through it " +
      "(which worker holds which stores, the stores' queued work) and sync into it. The embedded warehouse is private " +
      "to one process on one machine, so a worker cannot use it; for one machine without a cluster, `shopsync serve` or " +
      "`shopsync stores sync` do the work"
  }
}

/** The shard count of the default group (ShardingConfig's default). */
const SHARDS = 300

/** Logs how many shards this runner holds whenever that changes (it moves when workers join or leave). */
const ShardLogLive = Layer.scopedDiscard(Effect.gen(function*() {
  const sharding = yield* Sharding.Sharding
  let held = -1
  const check = Effect.suspend(() => {
    const ids = Array.from({ length: SHARDS }, (_, i) => i + 1).filter((i) => sharding.hasShardId(ShardId.make("default", i)))
    if (ids.length === held) return Effect.void
    held = ids.length
    return Effect.logInfo(`worker: holds ${ids.length} of ${SHARDS} shards`).pipe(Effect.annotateLogs({ shards: ids.length }))
  })
  yield* Effect.forkScoped(Effect.repeat(check, Schedule.spaced("2 seconds")))
}))

/**
 * A runner of the cluster with the registry's stores: migrates the warehouse, then runs until stopped. SIGTERM ends
 * the layer's scope: the runner finishes its running jobs, gives up its shards (the others take them at their next
 * refresh) and the command exits 143.
 */
const worker = Effect.gen(function*() {
  const url = yield* databaseUrlConfig
  if (Option.isNone(url)) return yield* new WorkerNeedsSharedDatabase()
  const { concurrency, host, port } = yield* runnerSettingsConfig
  // Every store's secrets are opened with it: without it (or unreadable), stop now rather than fail every sync.
  yield* loadMasterKey("shopsync worker")
  const runner = `${host}:${port}`
  const pools = workerPools(url.value, concurrency)
  return yield* Effect.gen(function*() {
    yield* migrate
    yield* Effect.logInfo(
      `worker: runner ${runner} (SHOPSYNC_RUNNER_HOST:SHOPSYNC_RUNNER_PORT), ${concurrency} store jobs at once, ` +
        `warehouse and cluster tables at ${describeDatabase(url.value)}`
    )
    return yield* Layer.launch(ShardLogLive.pipe(
      Layer.provideMerge(workerLayer({ clusterSql: pools.clusterSql, concurrency })),
      Layer.provide(RegistryDirectoryLive(runner)),
      Layer.provideMerge(StoreRegistryLive)
    ))
  }).pipe(Effect.provide(pools.workSql))
})

export const workerCommand = Command.make("worker", {}, () => worker).pipe(Command.withDescription(
  "Joins the cluster of workers that keeps the registered stores (`shopsync stores add`) current: each worker is a runner " +
    "of @effect/cluster listening on SHOPSYNC_RUNNER_HOST:SHOPSYNC_RUNNER_PORT (default port 34431; the host is the address " +
    "the other workers reach it at), holding a share of the 300 shards the stores hash to, and syncs its stores at their " +
    "interval, at most SHOPSYNC_RUNNER_CONCURRENCY (default 4) at once. Needs DATABASE_URL (the PostgreSQL all workers " +
    "share) and SHOPSYNC_MASTER_KEY or SHOPSYNC_MASTER_KEY_FILE. Start as many as needed, on one machine (distinct ports) " +
    "or many; one that dies has its stores taken over by the others within 20 s. SIGTERM: finishes its running syncs, " +
    "hands its shards over, exits 143."
))
