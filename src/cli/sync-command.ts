import { Command, Options } from "@effect/cli"
import { Data, Effect, Layer, Option } from "effect"
import { storeSettingsConfig } from "../config/settings.js"
import { marketingSettingsOption } from "../config/marketing.js"
import { StoreJobs } from "../jobs/store-jobs.js"
import { formatTable } from "../jobs/table.js"
import type { DryRunStream } from "../sync/dry-run.js"
import { RunDatabaseLive } from "../warehouse/database.js"
import { CATALOGUE, STREAMS } from "../sync/catalogue.js"
import { forStore } from "./errors.js"
import { choiceListOption, selectedStreams, streamsOption } from "./streams-option.js"
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
const fullRefreshOption = choiceListOption("full-refresh", "stream", STREAMS,
  "comma-separated streams to read again from the start: their cursors are forgotten (under the run lock) and only they run; " +
    "rows are merged by id, so nothing is counted twice, and what the store no longer has is found by the deletion look")
const dryRunOption = Options.boolean("dry-run").pipe(
  Options.withDescription("say what the sync would read (each stream's cursor, the documents and pages past it) and write nothing")
)

/** --full-refresh names its streams itself: with --streams as well, which to run would be unclear. */
class StreamsTwice extends Data.TaggedError("StreamsTwice")<{ readonly message: string }> {
  readonly exitCode = 64
}

const dryRunText = (rows: ReadonlyArray<DryRunStream>) =>
  formatTable(rows.map((r) => ({
    stream: r.stream,
    documents: r.documents ?? "",
    pages: r.pages ?? "",
    from: r.from
  })), ["stream", "documents", "pages", "from"]) + "\ndry run: nothing was written; the documents past each cursor are a floor (a walk re-reads its cursor's second)\n"

export const syncCommand = Command.make(
  "sync",
  {
    streams: streamsOption("all"), wait: waitOption, waitTimeout: waitTimeoutOption, noPush: noPushOption,
    fullRefresh: fullRefreshOption, dryRun: dryRunOption
  },
  ({ streams, wait, waitTimeout, noPush, fullRefresh, dryRun }) =>
    forStore("sync", (storeId) =>
      Effect.gen(function*() {
        if (Option.isSome(streams) && Option.isSome(fullRefresh)) {
          return yield* new StreamsTwice({ message: "--full-refresh names the streams it reads again: give them there, without --streams" })
        }
        const named = Option.orElse(fullRefresh, () => streams)
        const selected = selectedStreams(named, STREAMS)
        const target = { storeId, settings: yield* storeSettingsConfig, marketing: yield* marketingSettingsOption }
        const jobs = yield* StoreJobs
        if (dryRun) return yield* Effect.flatMap(jobs.dryRun(target, selected), (rows) => Effect.sync(() => process.stdout.write(dryRunText(rows))))
        const report = yield* jobs.sync(target, {
          streams: selected,
          mode: { kind: "sync" },
          waitForLock: wait || Option.isSome(waitTimeout),
          ...(Option.isSome(waitTimeout) ? { waitSeconds: waitTimeout.value } : {}),
          named: Option.isSome(named),
          fullRefresh: Option.isSome(fullRefresh)
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
      "children for the parents that changed and all of them every SHOPSYNC_CHILDREN_FULL_PASS_HOURS (default 24), " +
      "SHOPSYNC_CHILDREN_PASS_PERCENT (default 10) of them on a pass's first run, then at the pace that ends it within those hours; " +
      "a pass reads the orders and customers the store modified in SHOPSYNC_CHILDREN_QUIET_DAYS (default 30), and every one once in as many days. " +
      "A stream the store does not serve (404 rest_no_route) or will not let this key read (401/403) is skipped with a " +
      "warning and tried again after SHOPSYNC_UNAVAILABLE_RECHECK_HOURS (default 24), or at once when named with --streams " +
      "(then it fails the run). `status` shows each stream's strategy. Exits at once if another run holds the lock. " +
      "--full-refresh LIST reads those streams again from the start (a row you doubt: `shopsync resync`); --dry-run says " +
      "what a sync would read from each cursor, without a lock or a write (exit 0). " +
      "Exit codes: 0 done; 2 some streams failed (the others and the contact push ran); 75 another run holds the " +
      "store's lock, nothing done; 1 the run could not start or failed as a whole; 130/143 stopped by SIGINT/SIGTERM " +
      "(the next run resumes). With SHOPSYNC_ALERT_WEBHOOK_URL (or SHOPSYNC_ALERT_WEBHOOK_URL_FILE; https:// unless on loopback or " +
      "SHOPSYNC_ALERT_ALLOW_HTTP=1) a failed run POSTs a JSON alert there, without secrets; the exit code stays its own."
  )
)
