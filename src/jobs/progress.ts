import { Effect, Layer, LogLevel } from "effect"
import { Progress, type StreamResult } from "../sync/engine.js"
import { streamOutcome } from "../sync/errors.js"

interface Live {
  rows: number
  pages: number
  total: number
  readonly started: number
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US")

/**
 * On a terminal: one status line, redrawn as pages land (stream, pages done of total, rows/s).
 * Elsewhere (cron, CI): nothing per page, one structured log line per stream when it ends.
 */
export const ProgressLive = (perPage: number, interactive = process.stderr.isTTY === true) =>
  Layer.sync(Progress, () => {
    const live = new Map<string, Live>()
    const draw = () => {
      const parts = [...live.entries()].map(([stream, s]) => {
        const rate = s.rows / Math.max(0.001, (Date.now() - s.started) / 1000)
        const pages = Math.max(s.pages, Math.ceil(s.total / perPage))
        return `${stream} page ${s.pages}/${pages} ${fmt(s.rows)} rows ${fmt(rate)}/s`
      })
      process.stderr.write(`\r\x1b[2K${parts.join("  |  ")}`)
    }
    return Progress.of({
      page: (stream, rows, total) =>
        interactive
          ? Effect.sync(() => {
            const s = live.get(stream) ?? { rows: 0, pages: 0, total, started: Date.now() }
            // The first page's total counts what remained when the stream started.
            if (s.pages === 0) s.total = total
            s.rows += rows
            s.pages += 1
            live.set(stream, s)
            draw()
          })
          : Effect.void,
      streamDone: (result: StreamResult) =>
        Effect.gen(function*() {
          if (interactive) {
            live.delete(result.stream)
            process.stderr.write("\r\x1b[2K")
          }
          yield* logStreamOutcome(result, interactive)
          if (interactive && live.size > 0) draw()
        })
    })
  })

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
