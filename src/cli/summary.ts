import { Effect } from "effect"
import type { RunSummary } from "../sync/engine.js"
import { formatTable } from "./table.js"

/** The run's result: a table on stdout and one structured log line (for cron mail and log shippers). */
export const printSummary = (summary: RunSummary) =>
  Effect.gen(function*() {
    const rows = summary.streams.map((s) => ({
      stream: s.stream,
      rows: s.rows,
      deleted: s.deleted,
      seconds: s.seconds.toFixed(1),
      note: s.error ? "failed" : s.unavailable ? "unavailable on this store" : s.skipped ? "not due" : ""
    }))
    const notes = rows.some((r) => r.note !== "")
    process.stdout.write(`${formatTable(rows, ["stream", "rows", "deleted", "seconds", ...(notes ? ["note"] : [])])}\n`)
    const total = summary.streams.reduce((n, s) => n + s.rows, 0)
    process.stdout.write(`run ${summary.runId}: ${total} rows, ${summary.requests} requests in ${summary.seconds.toFixed(1)} s\n`)
    yield* Effect.logInfo("run finished").pipe(
      Effect.annotateLogs({ run: summary.runId, rows: total, requests: summary.requests, seconds: summary.seconds })
    )
  })
