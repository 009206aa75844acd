import { Effect, Layer } from "effect"
import { Progress, type StreamResult } from "../sync/engine.js"
import { logStreamOutcome } from "./summary.js"

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
