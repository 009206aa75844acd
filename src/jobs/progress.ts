import { Clock, Effect, Layer, LogLevel, Schedule } from "effect"
import { Progress, type StreamResult } from "../sync/engine.js"
import { streamOutcome } from "../sync/errors.js"
import { routineLevel } from "../sync/outcome.js"
import { statusLine } from "../telemetry/terminal.js"

interface Live {
  /** Rows loaded (parents read, for a child stream). */
  rows: number
  /** What the stream expects: the store's count (X-WP-Total) when its first page came, or what it loaded. */
  expected: number
  /** When its first page came, and what that page held: the pace counts what came after. */
  readonly started: number
  readonly first: number
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US")

const duration = (seconds: number) =>
  seconds < 60 ? `${Math.ceil(seconds)} s` : seconds < 3600 ? `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s` : `${(seconds / 3600).toFixed(1)} h`

/**
 * How far the streams being read are: what is left of each, the rows per second since the first page, and the time
 * left: the streams run at once, so the longest of theirs, each at its own pace (a child stream counts parents).
 */
const measure = (live: ReadonlyMap<string, Live>, loaded: number, started: number, now: number) => {
  const since = (t: number) => Math.max(0.001, (now - t) / 1000)
  const left = [...live.values()].reduce((sum, s) => sum + Math.max(0, s.expected - s.rows), 0)
  const etas = [...live.values()].map((s) =>
    s.rows >= s.expected ? 0 : s.rows > s.first ? (s.expected - s.rows) / ((s.rows - s.first) / since(s.started)) : undefined)
  return { rate: since(started) < 1 ? undefined : loaded / since(started), left, etaSeconds: etas.some((e) => e === undefined) ? undefined : Math.max(0, ...(etas as number[])) }
}

/**
 * On a terminal: one status line, redrawn as pages land: each stream's rows of the store's count, rows/s and the
 * time left (ETA) at that pace. Elsewhere (cron, CI, a worker): every 10 s while streams are read, one `progress` log
 * line with the same figures as fields; and one structured log line per stream when it ends (logStreamOutcome).
 */
export const ProgressLive = (interactive = process.stderr.isTTY === true) =>
  Layer.scoped(Progress, Effect.gen(function*() {
    const live = new Map<string, Live>()
    const routine = routineLevel(interactive)
    let loaded = 0
    let started: number | undefined
    const figures = Effect.map(Clock.currentTimeMillis, (now) => measure(live, loaded, started ?? now, now))
    const draw = Effect.map(figures, ({ etaSeconds, rate }) => {
      const streams = [...live.entries()].map(([stream, s]) => `${stream} ${fmt(s.rows)}/${fmt(s.expected)}`).join(" · ")
      const pace = [rate === undefined ? "" : `${fmt(rate)} rows/s`, etaSeconds === undefined ? "" : `about ${duration(etaSeconds)} left`]
      statusLine.set(`${streams}  ${pace.filter((p) => p !== "").join(", ")}`)
    })
    const report = Effect.flatMap(figures, ({ etaSeconds, left, rate }) =>
      live.size === 0 ? Effect.void : Effect.logInfo(`progress: ${fmt(loaded)} rows read, ${fmt(left)} to go`).pipe(Effect.annotateLogs({
        event: "progress",
        rows: loaded,
        rowsLeft: left,
        ...(rate === undefined ? {} : { rowsPerSecond: Math.round(rate) }),
        ...(etaSeconds === undefined ? {} : { etaSeconds: Math.ceil(etaSeconds) }),
        streams: Object.fromEntries([...live.entries()].map(([stream, s]) => [stream, { rows: s.rows, expected: s.expected }]))
      })))
    // A stream leaves the display; what is said of it goes above the status line, drawn again after it.
    const leave = (stream: string, said: Effect.Effect<void>) =>
      Effect.gen(function*() {
        live.delete(stream)
        if (interactive) statusLine.clear()
        yield* said
        if (interactive && live.size > 0) yield* draw
      })
    if (!interactive) yield* Effect.forkScoped(Effect.repeat(Effect.delay(report, "10 seconds"), Schedule.forever))
    yield* Effect.addFinalizer(() => Effect.sync(statusLine.clear))
    return Progress.of({
      page: (stream, rows, total) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          started ??= now
          const s = live.get(stream) ?? { rows: 0, expected: total, started: now, first: rows }
          s.rows += rows
          s.expected = Math.max(s.expected, s.rows)
          live.set(stream, s)
          loaded += rows
          if (interactive) yield* draw
        }),
      streamDone: (result: StreamResult) => leave(result.stream, logStreamOutcome(result, routine)),
      done: (stream) => leave(stream, Effect.void),
      routine
    })
  }))

/**
 * A stream's outcome as one log line (`stream`, `outcome`: done, failed, unavailable, not due, skipped, figures,
 * `error` or `reason`): error when it failed, warning when found unavailable, info when it read or deleted rows. A
 * stream that changed nothing is routine: not due, left to another run or known unavailable, a debug line; done with
 * no rows, at the `routine` level (Progress): info on a terminal, where a person watches the streams end one by one,
 * debug in logs. The run's summary line says as much, and sync.runs and the printed table keep each stream's
 * outcome: a worker would otherwise repeat two dozen such lines every sync of every store.
 */
export const logStreamOutcome = (result: StreamResult, routine: LogLevel.LogLevel) => {
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
  const ended = outcome === "failed" ? LogLevel.Error : result.rows + result.deleted > 0 ? LogLevel.Info : routine
  const [level, line] = outcome === "unavailable" && result.skipped === undefined
    ? [LogLevel.Warning, `${result.stream}: unavailable on this store, skipped: ${result.unavailable}; tried again after ` +
      "SHOPSYNC_UNAVAILABLE_RECHECK_HOURS, or at once when named with --streams"]
    : outcome === "unavailable"
    ? [LogLevel.Debug, `${result.stream}: unavailable on this store (${result.unavailable}), not read; ${result.skipped}`]
    : outcome === "not due" || outcome === "skipped"
    ? [LogLevel.Debug, `${result.stream}: ${outcome === "skipped" ? "skipped, " : ""}${result.skipped}`]
    : [ended, `${result.stream}: ${outcome}, ${fmt(result.rows)} rows` +
      `${result.deleted ? `, ${result.deleted} deleted` : ""} in ${result.seconds.toFixed(1)} s${result.error ? ` — ${result.error}` : ""}`]
  return Effect.logWithLevel(level, line).pipe(Effect.annotateLogs(fields))
}
