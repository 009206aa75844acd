import { Effect, LogLevel } from "effect"
import type { RunSummary } from "../sync/engine.js"
import { type StreamResult, streamOutcome } from "../sync/errors.js"
import { formatTable } from "./table.js"

const NOTES = { done: "", failed: "failed", unavailable: "unavailable on this store", "not due": "not due", skipped: "left to another run" } as const

/** The run's result as a table on stdout (its log line is written where the run is recorded: sync/runs.ts). */
export const printSummary = (summary: RunSummary) => Effect.sync(() => process.stdout.write(summaryText(summary)))

/** The run's table and its figures' line, as printSummary prints them (a worker sends it to the sender of a sync). */
export const summaryText = (summary: RunSummary): string => {
  const rows = summary.streams.map((s) => ({
    stream: s.stream,
    rows: s.rows,
    deleted: s.deleted,
    seconds: s.seconds.toFixed(1),
    note: NOTES[streamOutcome(s)]
  }))
  const notes = rows.some((r) => r.note !== "")
  const total = summary.streams.reduce((n, s) => n + s.rows, 0)
  return `${formatTable(rows, ["stream", "rows", "deleted", "seconds", ...(notes ? ["note"] : [])])}\n` +
    `run ${summary.runId}: ${total} rows, ${summary.requests} requests in ${summary.seconds.toFixed(1)} s\n`
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US")

/**
 * A stream's outcome as one log line (`stream`, `outcome`: done, failed, unavailable, not due, skipped, figures,
 * `error` or `reason`): error when it failed, warning when found unavailable, info otherwise. On a terminal a
 * stream the run did not read is only a debug line, as before.
 */
export const logStreamOutcome = (result: StreamResult, interactive: boolean) => {
  const outcome = streamOutcome(result)
  const reason = result.unavailable ?? result.skipped
  const fields = {
    stream: result.stream,
    outcome,
    rows: result.rows,
    deleted: result.deleted,
    seconds: result.seconds,
    ...(result.error ? { error: result.error } : reason ? { reason } : {})
  }
  const quiet = interactive ? LogLevel.Debug : LogLevel.Info
  const [level, line] = outcome === "unavailable" && result.skipped === undefined
    ? [LogLevel.Warning, `${result.stream}: unavailable on this store, skipped: ${result.unavailable}; tried again after ` +
      "SHOPSYNC_UNAVAILABLE_RECHECK_HOURS, or at once when named with --streams"]
    : outcome === "unavailable"
    ? [quiet, `${result.stream}: unavailable on this store (${result.unavailable}), not read; ${result.skipped}`]
    : outcome === "not due" || outcome === "skipped"
    ? [quiet, `${result.stream}: ${outcome === "skipped" ? "skipped, " : ""}${result.skipped}`]
    : [outcome === "failed" ? LogLevel.Error : LogLevel.Info, `${result.stream}: ${outcome}, ${fmt(result.rows)} rows` +
      `${result.deleted ? `, ${result.deleted} deleted` : ""} in ${result.seconds.toFixed(1)} s${result.error ? ` — ${result.error}` : ""}`]
  return Effect.logWithLevel(level, line).pipe(Effect.annotateLogs(fields))
}
