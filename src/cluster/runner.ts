import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as RunnerHealth from "@effect/cluster/RunnerHealth"
import * as Runners from "@effect/cluster/Runners"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SocketRunner from "@effect/cluster/SocketRunner"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect, Layer, Option, Schedule } from "effect"
import { runnerSettingsConfig } from "../config/settings.js"
import { tryAdvisoryLock } from "../warehouse/advisory-lock.js"
import { RunnerPskLive } from "./cluster-secret.js"
import { RunnerClientProtocolLive, RunnerSocketServerLive } from "./runner-socket.js"

/**
 * The cluster's timings. There is no shard manager in @effect/cluster 0.60: every runner reads the live runners from
 * cluster_runners (those with a heartbeat younger than `shardLockExpiration` and not marked unhealthy), puts them on
 * the same consistent-hash ring and so computes the same shard → runner table; a runner then takes the PostgreSQL
 * advisory lock of each shard it was given (one reserved connection holds them all) and runs those shards' entities.
 *
 * A runner killed without warning: its connection drops, so PostgreSQL frees its advisory locks at once, but the others
 * only move its shards once it leaves their ring, which happens when the first of these fires:
 * - the health check (a cluster singleton, every `runnerHealthCheckInterval`) pings it over its socket, fails 5 times
 *   500 ms apart and marks it unhealthy;
 * - its heartbeat (written every `shardLockRefreshInterval`, capped at a third of the expiration) grows older than
 *   `shardLockExpiration`.
 * The others see the change at their next `refreshAssignmentsInterval`, lock the shards and read the shards' unprocessed
 * messages. With the library's defaults (checks every minute, 35 s expiry) that takes up to about a minute; these give
 * 5-19 s (19 when the health check itself ran on the dead runner and has to wait for the expiry to move), inside the
 * 30 s the workers promise, for a ping every 5 s and a heartbeat write every 5 s per runner. A SIGTERM is faster: the
 * runner finishes its running jobs (up to `entityTerminationTimeout`, 15 s), deletes its row and unlocks its shards.
 */
export const clusterTimings = {
  shardLockExpiration: Duration.seconds(15),
  shardLockRefreshInterval: Duration.seconds(5),
  runnerHealthCheckInterval: Duration.seconds(5),
  refreshAssignmentsInterval: Duration.seconds(3)
} satisfies Partial<ShardingConfig.ShardingConfig["Type"]>

/**
 * Built from shopsync's own settings: NodeClusterSocket.layer would read ShardingConfig.layerFromEnv, that is the
 * unprefixed variables HOST, PORT, SHARDS_PER_GROUP… that no shopsync setting names (a stray PORT would move the runner).
 */
const shardingConfig = (runnerAddress: Option.Option<RunnerAddress.RunnerAddress>) =>
  ShardingConfig.layer({ ...clusterTimings, runnerAddress })

const runnerAddressConfig = Effect.map(
  runnerSettingsConfig,
  ({ host, port }) => Option.some(RunnerAddress.make(host, port))
)

/** Messages and runner/shard state in the warehouse's PostgreSQL (tables cluster_messages, cluster_replies, cluster_runners). */
const storageLayers = Layer.provideMerge(
  Layer.orDie(SqlMessageStorage.layer),
  Layer.orDie(SqlRunnerStorage.layer)
)

/**
 * The storage layers create their tables when they start: two runners starting together against a new database race
 * (the loser dies on `relation "cluster_migrations" already exists`), so runners build them one at a time.
 */
const storage = Layer.scopedContext(Effect.gen(function*() {
  const outer = yield* Effect.scope
  return yield* tryAdvisoryLock("shopsync.cluster", "storage setup").pipe(
    Effect.repeat({ until: (taken) => taken, schedule: Schedule.spaced("200 millis") }),
    Effect.zipRight(Layer.buildWithScope(storageLayers, outer)),
    Effect.scoped
  )
})).pipe(Layer.orDie)

/**
 * A runner: listens on SHOPSYNC_RUNNER_HOST:SHOPSYNC_RUNNER_PORT (msgpack over TLS keyed by SHOPSYNC_CLUSTER_SECRET,
 * see runner-socket.ts), takes its share of the shards and runs the entities registered on top of it. `clusterSql` is
 * a pool of its own (see `workerPools`).
 */
export const runnerLayer = <E>(clusterSql: Layer.Layer<SqlClient.SqlClient, E>) => SocketRunner.layer.pipe(
  Layer.provide([RunnerSocketServerLive, RunnerClientProtocolLive]),
  Layer.provide(RunnerHealth.layerPing.pipe(
    Layer.provide(Runners.layerRpc),
    Layer.provide(RunnerClientProtocolLive)
  )),
  Layer.provideMerge(storage),
  Layer.provide(Layer.unwrapEffect(Effect.map(runnerAddressConfig, shardingConfig))),
  Layer.provide([RpcSerialization.layerMsgPack, RunnerPskLive]),
  Layer.provide(clusterSql)
)

/**
 * A client of the cluster that runs no entities (the CLI's `stores sync`): it writes persisted messages to storage and
 * tells the owning runner (so it needs the cluster secret too); it needs no address of its own.
 */
export const ClusterClientLive = SocketRunner.layerClientOnly.pipe(
  Layer.provide(RunnerClientProtocolLive),
  Layer.provideMerge(storage),
  Layer.provide(shardingConfig(Option.none())),
  Layer.provide([RpcSerialization.layerMsgPack, RunnerPskLive])
)
