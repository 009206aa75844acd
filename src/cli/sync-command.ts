import { Command, Options } from "@effect/cli"
import { Effect, Layer, Option } from "effect"
import { fullPassConfig, storeIdConfig, storeSettingsConfig } from "../config/settings.js"
import { marketingSettingsOption } from "../marketing-client/config.js"
import { OutboxLive } from "../contacts/outbox.js"
import { enqueueContacts } from "../contacts/push.js"
import { RunDatabaseLive } from "../warehouse/database.js"
import { CATALOGUE, STREAMS } from "../sync/catalogue.js"
import { runSync } from "../sync/engine.js"
import { RunLockHeld } from "../sync/errors.js"
import { Runs, RunsLive } from "../sync/runs.js"
import { forStore } from "./errors.js"
import { syncLayer } from "./layers.js"
import { reportPush, runPush } from "./push-command.js"
import { parseStreams, streamsOption } from "./streams-option.js"
import { printSummary } from "./summary.js"

const waitOption = Options.boolean("wait").pipe(
  Options.withDescription("if another run holds this store's lock, wait for it instead of exiting")
)
const waitTimeoutOption = Options.integer("wait-timeout").pipe(
  Options.withPseudoName("SECONDS"),
  Options.withDescription("wait for another run's lock at most this many seconds, then exit 75 (implies --wait)"),
  Options.optional
)
const noPushOption = Options.boolean("no-push").pipe(
  Options.withDescription("do not push contacts to the marketing service after the sync")
)

/**
 * After a sync: enqueue the contacts whose state changed and (unless --no-push) send them. Without the
 * three marketing variables this is skipped, said once.
 */
const marketingPush = (noPush: boolean) =>
  Effect.gen(function*() {
    const settings = yield* marketingSettingsOption
    if (Option.isNone(settings)) {
      if (!noPush) yield* Effect.logInfo("marketing push skipped: MARKETING_BASE_URL, MARKETING_CLIENT_ID and MARKETING_CLIENT_SECRET are not set")
      return
    }
    const storeId = yield* storeIdConfig
    if (noPush) {
      const queued = yield* enqueueContacts(storeId)
      process.stdout.write(`marketing: ${queued.enqueued} contact(s) enqueued, ${queued.quarantined} quarantined; \`shopsync push\` sends them\n`)
      return
    }
    yield* reportPush(yield* runPush(settings.value, storeId))
  })

export const syncCommand = Command.make(
  "sync",
  { streams: streamsOption("all"), wait: waitOption, waitTimeout: waitTimeoutOption, noPush: noPushOption },
  ({ streams, wait, waitTimeout, noPush }) =>
    forStore("sync", (storeId) =>
      Effect.gen(function*() {
        const selected = yield* parseStreams(streams, STREAMS)
        const settings = yield* storeSettingsConfig
        // A stream that failed stops neither the others nor the push, which works on what the warehouse holds;
        // the command still fails afterwards (exit code 2), naming the streams.
        const summary = yield* runSync({
          streams: selected,
          mode: { kind: "sync" },
          waitForLock: wait || Option.isSome(waitTimeout),
          ...(Option.isSome(waitTimeout) ? { waitSeconds: waitTimeout.value } : {}),
          named: Option.isSome(streams),
          ...(yield* fullPassConfig)
        }).pipe(
          Effect.provide(syncLayer(settings)),
          Effect.catchTag("SyncFailed", (failed) =>
            printSummary(failed.summary).pipe(Effect.zipRight(marketingPush(noPush)), Effect.zipRight(Effect.fail(failed))))
        )
        if (summary === undefined) {
          const held = new RunLockHeld({ storeId, ...(Option.isSome(waitTimeout) ? { waitedSeconds: waitTimeout.value } : {}) })
          yield* Effect.flatMap(Runs, (runs) => runs.skipped("sync", selected, held))
          return yield* held
        }
        yield* printSummary(summary)
        yield* marketingPush(noPush)
      }).pipe(Effect.provide(Layer.mergeAll(OutboxLive, RunsLive(storeId)).pipe(Layer.provideMerge(RunDatabaseLive)))))
).pipe(
  Command.withDescription(
    "Brings the warehouse up to date with the store, then pushes the contacts that changed to the marketing service. " +
      "Incremental: pages each stream from its cursor (modified_after, dates_are_gmt) up to the store's clock " +
      "minus STORE_SETTLE_SECONDS, loads every page with its checkpoint in one transaction, marks deletions, " +
      "and refreshes the store's sales report for the days that changed; then refreshes the store's other resources " +
      `(${STREAMS.filter((name) => !CATALOGUE[name].sales).join(", ")}), ` +
      "children for the parents that changed and all of them every SHOPSYNC_CHILDREN_FULL_PASS_HOURS (default 24). " +
      "A stream the store does not serve (404 rest_no_route) or will not let this key read (401/403) is skipped with a " +
      "warning and tried again after SHOPSYNC_UNAVAILABLE_RECHECK_HOURS (default 24), or at once when named with --streams " +
      "(then it fails the run). `status` shows each stream's strategy. Exits at once if another run holds the lock. " +
      "Exit codes: 0 done; 2 some streams failed (the others and the contact push ran); 75 another run holds the " +
      "store's lock, nothing done; 1 the run could not start or failed as a whole; 130/143 stopped by SIGINT/SIGTERM " +
      "(the next run resumes)."
  )
)
