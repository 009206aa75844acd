import { Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Option } from "effect"
import { fullPassConfig, storeSettingsConfig } from "../config/settings.js"
import { SALES_STREAMS } from "../sync/catalogue.js"
import { runSync } from "../sync/engine.js"
import { DatabaseLive } from "../warehouse/database.js"
import { forStore } from "./errors.js"
import { syncLayer } from "./layers.js"
import { parseStreams, streamsOption } from "./streams-option.js"
import { printSummary } from "./summary.js"

/** Date.parse rolls a day past the month's end over (2025-02-30 is March 2), so the day must survive a round trip. */
const isCalendarDay = (value: string): boolean => {
  const parsed = Date.parse(`${value}T00:00:00Z`)
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(parsed) && new Date(parsed).toISOString().slice(0, 10) === value
}

const day = (name: string, description: string) =>
  Options.text(name).pipe(
    Options.withDescription(description),
    Options.mapEffect((value) =>
      isCalendarDay(value)
        ? Effect.succeed(value)
        : Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name} must be a calendar day YYYY-MM-DD that exists, got "${value}"`)))
    )
  )

const today = () => new Date().toISOString().slice(0, 10)

export const backfillCommand = Command.make(
  "backfill",
  {
    since: day("since", "first store-local day to re-read (YYYY-MM-DD)"),
    until: day("until", "last store-local day to re-read, inclusive (YYYY-MM-DD; default today)").pipe(Options.optional),
    streams: streamsOption(SALES_STREAMS.join(","))
  },
  ({ since, until, streams }) =>
    forStore("backfill", () => Effect.gen(function*() {
      const last = until._tag === "Some" ? until.value : today()
      if (last < since) return yield* Effect.fail(new Error(`--until ${last} is before --since ${since}`))
      const selected = yield* parseStreams(streams, SALES_STREAMS)
      const settings = yield* storeSettingsConfig
      const summary = yield* runSync({
        streams: selected,
        mode: { kind: "backfill", since, until: last },
        waitForLock: true,
        named: Option.isSome(streams),
        ...(yield* fullPassConfig)
      }).pipe(
        Effect.provide(syncLayer(settings)),
        Effect.catchTag("SyncFailed", (failed) => Effect.zipRight(printSummary(failed.summary), Effect.fail(failed)))
      )
      if (summary !== undefined) yield* printSummary(summary)
    }).pipe(Effect.provide(DatabaseLive)))
).pipe(
  Command.withDescription(
    "Re-reads everything created between --since and --until (store-local days) and loads it, without moving " +
      "the incremental cursors: for a first load of history or to repair a period. By default the sales streams; " +
      "other streams named with --streams are refreshed whole. Waits for a running sync to finish. " +
      "Exit codes: 0 done; 2 some streams failed (the others ran); 1 the run could not start or failed as a whole; " +
      "130/143 stopped by SIGINT/SIGTERM."
  )
)
