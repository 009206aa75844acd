import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { SqlClient } from "@effect/sql/SqlClient"
import { Cause, Effect, Layer, Option } from "effect"
import { ProgressLive } from "../cli/progress.js"
import { fullPassConfig, type StoreSettings } from "../config/settings.js"
import { StoreClientLive } from "../store-client/client.js"
import { STREAMS } from "../sync/catalogue.js"
import { runSync } from "../sync/engine.js"
import { RunLockHeld } from "../sync/errors.js"
import { Runs, RunsLive } from "../sync/runs.js"
import { StoreWorkFailed } from "./store-directory.js"

/**
 * What a store's sync needs besides the warehouse: its client over undici and a progress that only logs (a worker
 * syncs many stores at once: no status line on its terminal).
 */
const storeLayer = (settings: StoreSettings) =>
  Layer.mergeAll(
    StoreClientLive(settings).pipe(Layer.provide(NodeHttpClient.layerUndici)),
    ProgressLive(settings.perPage, false),
    RunsLive(settings.storeId)
  )

/** The operator's line for a failed sync: a failure's own message, else the first cause. */
const describe = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const e = failure.value as { message?: unknown; _tag?: unknown }
    return typeof e.message === "string" && e.message !== "" ? e.message : String(e._tag ?? e)
  }
  return Cause.pretty(cause).split("\n")[0] ?? "sync failed"
}

/**
 * One store's sync, as `shopsync sync --no-push` runs it (every stream, incremental, the store's lease fencing every
 * write), for a StoreDirectory's `syncStore`. Another run holding the store's lock (a `shopsync sync` by hand, or a
 * runner the cluster already gave up on) is not a failure: the run is recorded as skipped and the next slot tries again.
 */
export const syncStoreWith = (settings: StoreSettings, trigger: string): Effect.Effect<void, StoreWorkFailed, SqlClient> =>
  Effect.gen(function*() {
    const summary = yield* runSync({ streams: STREAMS, mode: { kind: "sync" }, waitForLock: false, named: false, ...(yield* fullPassConfig) })
    if (summary === undefined) {
      const held = new RunLockHeld({ storeId: settings.storeId })
      yield* Effect.flatMap(Runs, (runs) => runs.skipped("sync", STREAMS, held))
      return yield* Effect.logInfo(`store ${settings.storeId}: another run holds its lock; ${trigger} skipped`)
    }
    yield* Effect.logInfo(`store ${settings.storeId}: synced (${trigger}), ${summary.requests} requests in ${summary.seconds.toFixed(1)} s`)
  }).pipe(
    Effect.provide(storeLayer(settings)),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause as Cause.Cause<never>)
        : Effect.fail(new StoreWorkFailed({ storeId: settings.storeId, message: describe(cause) }))
    ),
    Effect.annotateLogs({ store: settings.storeId })
  )
