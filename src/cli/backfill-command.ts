import { Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Clock, Effect, Layer, Option } from "effect"
import { storeSettingsConfig } from "../config/settings.js"
import { StoreJobs } from "../jobs/store-jobs.js"
import { SALES_STREAMS } from "../sync/catalogue.js"
import { latestDay } from "../sync/time.js"
import { RunDatabaseLive } from "../warehouse/database.js"
import { forStore } from "./errors.js"
import { selectedStreams, streamsOption } from "./streams-option.js"
import { printSyncReport } from "./summary.js"

/** Date.parse rolls a day past the month's end over (2025-02-30 is March 2), so the day must survive a round trip. */
const isCalendarDay = (value: string): boolean => {
  const parsed = Date.parse(`${value}T00:00:00Z`)
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(parsed) && new Date(parsed).toISOString().slice(0, 10) === value
}

const invalid = (text: string) => Effect.fail(ValidationError.invalidValue(HelpDoc.p(text)))

const day = (name: string, description: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("YYYY-MM-DD"),
    Options.withDescription(description),
    Options.mapEffect((value) =>
      !isCalendarDay(value)
        ? invalid(`--${name} must be a calendar day YYYY-MM-DD that exists, got "${value}"`)
        : Effect.flatMap(Effect.all([latestDay, Clock.currentTimeMillis]), ([latest, now]) =>
          value > latest
            ? invalid(`--${name} ${value} is in the future: no store has reached that day yet (today is ${new Date(now).toISOString().slice(0, 10)} in UTC)`)
            : Effect.succeed(value))
    )
  )

/** --since and --until, in order, checked while the command line is read (a mistake in them exits 64 before any work). */
export const period = Options.all({
  since: day("since", "first store-local day to re-read"),
  until: day("until", "last store-local day to re-read, inclusive (default: up to the store's clock)").pipe(Options.optional)
}).pipe(
  Options.mapEffect(({ since, until }) =>
    Option.isSome(until) && until.value < since
      ? invalid(`--until ${until.value} is before --since ${since}`)
      : Effect.map(Option.match(until, { onNone: () => latestDay, onSome: Effect.succeed }), (last) => ({ since, until: last }))
  )
)

export const backfillCommand = Command.make(
  "backfill",
  { period, streams: streamsOption(SALES_STREAMS.join(",")) },
  ({ period: { since, until }, streams }) =>
    forStore("backfill", (storeId) => Effect.gen(function*() {
      const selected = selectedStreams(streams, SALES_STREAMS)
      // Settings first: a wrong one stops the command before it starts the warehouse.
      const target = { storeId, settings: yield* storeSettingsConfig, marketing: Option.none() }
      const report = yield* Effect.flatMap(StoreJobs, (jobs) =>
        jobs.backfill(target, { streams: selected, mode: { kind: "backfill", since, until }, waitForLock: true, named: Option.isSome(streams) })
      ).pipe(Effect.provide(StoreJobs.Default.pipe(Layer.provideMerge(RunDatabaseLive))))
      yield* printSyncReport(report)
    }))
).pipe(
  Command.withDescription(
    "Re-reads a period of the store's history and loads it. Everything created between --since and --until " +
      "(store-local days, --until at most up to the store's clock) is read again without moving " +
      "the incremental cursors: for a first load of history or to repair a period. By default the sales streams; " +
      "other streams named with --streams are refreshed whole. Waits for a running sync to finish. " +
      "Exit codes: 0 done; 2 some streams failed (the others ran); 1 the run could not start or failed as a whole; " +
      "64 a mistake in the options (a day that does not exist or has not come yet, --until before --since); " +
      "130/143 stopped by SIGINT/SIGTERM. With SHOPSYNC_ALERT_WEBHOOK_URL (or SHOPSYNC_ALERT_WEBHOOK_URL_FILE) a failed run " +
      "POSTs a JSON alert there, without secrets."
  )
)
