import type * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Layer, Option, type Redacted } from "effect"
import { pgLayer } from "../warehouse/database.js"
import { StoreMessageRetentionLive } from "./retention.js"
import { runnerLayer } from "./runner.js"
import { StoreScheduleLive } from "./schedule.js"
import { StoreEntityLive } from "./store-entity.js"

/**
 * A worker's two connection pools on the warehouse. The cluster's own (shard locks on one reserved session, messages,
 * heartbeats) is apart from the stores' work: a sync holds a session for its run locks and more for its pages, and
 * with one shared pool three syncs starved the heartbeat until the runner lost its shards (seen in the tests). The
 * work pool gives each of `concurrency` jobs its lock session and two to load with, each of `concurrency` webhook
 * applications its transaction's session, plus one (the HTTP routes' reads).
 */
export const workerPools = (url: Redacted.Redacted<string>, concurrency: number) => ({
  clusterSql: pgLayer(url, 4),
  workSql: pgLayer(url, 4 * concurrency + 1)
})

/**
 * A worker: a runner with the Store entity, the store schedule and the pruning of old messages registered. Needs a StoreDirectory (whose work runs
 * on the work pool); `tick` is how often the schedule looks for due stores (well under the shortest interval).
 */
export const workerLayer = <E>(options: {
  readonly clusterSql: Layer.Layer<SqlClient.SqlClient, E>
  readonly concurrency: number
  readonly tick?: Duration.DurationInput | undefined
  /** How long processed store messages are kept (default a day), pruned every tenth of that. */
  readonly keepMessages?: Duration.DurationInput | undefined
}) =>
  Layer.mergeAll(
    StoreEntityLive(options.concurrency),
    StoreScheduleLive(options.tick ?? "5 seconds"),
    StoreMessageRetentionLive({
      keep: options.keepMessages ?? "1 day",
      every: Duration.divide(options.keepMessages ?? "1 day", 10).pipe(Option.getOrElse(() => Duration.hours(1)))
    }).pipe(Layer.provide(options.clusterSql))
  ).pipe(
    Layer.provideMerge(runnerLayer(options.clusterSql))
  )
