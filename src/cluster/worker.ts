import { type Duration, Layer } from "effect"
import { RunnerLive } from "./runner.js"
import { StoreScheduleLive } from "./schedule.js"
import { StoreEntityLive } from "./store-entity.js"

/**
 * A worker: a runner with the Store entity and the store schedule registered. Needs the warehouse's SqlClient and a
 * StoreDirectory; `tick` is how often the schedule looks for stores that are due (well under the shortest interval).
 */
export const workerLayer = (tick: Duration.DurationInput = "5 seconds") =>
  Layer.mergeAll(StoreEntityLive, StoreScheduleLive(tick)).pipe(Layer.provideMerge(RunnerLive))
