import { Command, Options } from "@effect/cli"
import { Effect, Layer, Option } from "effect"
import { storeSettingsConfig } from "../config/settings.js"
import { marketingSettingsOption } from "../config/marketing.js"
import { StoreJobs } from "../jobs/store-jobs.js"
import { RunDatabaseLive } from "../warehouse/database.js"
import { CATALOGUE, STREAMS } from "../sync/catalogue.js"
import { forStore } from "./errors.js"
import { selectedStreams, streamsOption } from "./streams-option.js"
import { printSyncReport } from "./summary.js"

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

export const syncCommand = Command.make(
  "sync",
  { streams: streamsOption("all"), wait: waitOption, waitTimeout: waitTimeoutOption, noPush: noPushOption },
  ({ streams, wait, waitTimeout, noPush }) =>
    forStore("sync", (storeId) =>
      Effect.gen(function*() {
        const selected = selectedStreams(streams, STREAMS)
        const target = { storeId, settings: yield* storeSettingsConfig, marketing: yield* marketingSettingsOption }
        const report = yield* (yield* StoreJobs).sync(target, {
          streams: selected,
          mode: { kind: "sync" },
          waitForLock: wait || Option.isSome(waitTimeout),
          ...(Option.isSome(waitTimeout) ? { waitSeconds: waitTimeout.value } : {}),
          named: Option.isSome(streams)
        }, noPush ? "enqueue" : "push")
        yield* printSyncReport(report, noPush)
      }).pipe(Effect.provide(StoreJobs.Default.pipe(Layer.provideMerge(RunDatabaseLive)))))
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
