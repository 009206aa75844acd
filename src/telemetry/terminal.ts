import { Cause, Logger, type LogLevel } from "effect"

/**
 * What shopsync writes to a terminal's stderr: log lines, one line each, and below them one status line (progress)
 * redrawn in place. Writing a log line clears the status line, prints the log line and draws the status line again,
 * so the two never run into each other.
 */
let status = ""

/** Carriage return and erase line: the cursor at the start of an empty line. */
const ERASE = "\r\x1b[2K"

const fit = (text: string) => {
  const width = Math.max(40, (process.stderr.columns || 100) - 1)
  return text.length > width ? `${text.slice(0, width - 1)}…` : text
}

export const statusLine = {
  /** Shows `text` (cut to the terminal's width) as the status line. */
  set: (text: string) => {
    status = fit(text)
    process.stderr.write(`${ERASE}${status}`)
  },
  clear: () => {
    if (status === "") return
    status = ""
    process.stderr.write(ERASE)
  }
}

const dim = (text: string) => `\x1b[2m${text}\x1b[0m`

const LEVEL: Partial<Record<LogLevel.LogLevel["_tag"], string>> = {
  Warning: "\x1b[33mwarning:\x1b[0m ",
  Error: "\x1b[31merror:\x1b[0m ",
  Fatal: "\x1b[31mfatal:\x1b[0m ",
  Debug: dim("debug: "),
  Trace: dim("trace: ")
}

const text = (message: unknown): string =>
  (Array.isArray(message) ? message : [message]).map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join(" ")

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim()

const clock = (date: Date) => date.toTimeString().slice(0, 8)

/**
 * One line per log entry: the local time, the level when it is not info, the message (a failure's first line after
 * it). The annotations (store, stream, rows…) are for machines: the JSON logger off a terminal carries them.
 */
export const terminalLogger = Logger.make(({ cause, date, logLevel, message }) => {
  const why = Cause.isEmpty(cause) ? "" : ` (${oneLine(Cause.pretty(cause).split("\n")[0] ?? "")})`
  process.stderr.write(`${ERASE}${dim(clock(date))} ${LEVEL[logLevel._tag] ?? ""}${oneLine(text(message))}${why}\n${status}`)
})
