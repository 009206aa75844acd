import { Effect, Option } from "effect"
import { CATALOGUE, STATE_ROWS, STREAMS } from "../sync/catalogue.js"
import { SyncState, type Unavailable } from "../sync/state.js"
import type { StreamStatus } from "../sync/stream-status.js"

/** The table whose live rows count for each state row: the streams', then their trash listings' and deletions checks'. */
const TABLES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(STREAMS.map((name) => [name, CATALOGUE[name].table])),
  ...Object.fromEntries(Object.entries(STATE_ROWS).filter(([, r]) => r.table !== "").map(([row, r]) => [row, r.table]))
}

const STREAM_NAMES: ReadonlySet<string> = new Set(STREAMS)

/** What a stream's state row says at a glance. */
export type Health = "ok" | "failing" | "unavailable" | "running" | "never succeeded"

export interface StreamHealth {
  readonly status: StreamStatus
  readonly health: Health
  /** A stream of the catalogue (false: a part of one, such as its trash listing). */
  readonly isStream: boolean
  readonly unavailable: Option.Option<Unavailable>
  /** When the stream last succeeded (epoch second), if ever. */
  readonly lastSuccessAt: number | undefined
}

/** PostgreSQL's `YYYY-MM-DD HH24:MI:SS` in UTC, as `status` formats it, to an epoch second. */
export const epochOfUtcText = (text: string | null): number | undefined => {
  if (text === null || text === "") return undefined
  const ms = Date.parse(`${text.replace(" ", "T")}Z`)
  return Number.isNaN(ms) ? undefined : ms / 1000
}

const healthOf = (status: StreamStatus, unavailable: Option.Option<Unavailable>): Health => {
  if (Option.isSome(unavailable)) return "unavailable"
  if (status.last_error !== "") return "failing"
  const started = epochOfUtcText(status.last_started)
  const succeeded = epochOfUtcText(status.last_success)
  if (succeeded === undefined) return started === undefined ? "never succeeded" : "running"
  return started !== undefined && started > succeeded ? "running" : "ok"
}

/** Every state row of the store with its health, streams in the catalogue's order first, then their parts. */
export const streamHealth = Effect.gen(function*() {
  const state = yield* SyncState
  const rows = yield* state.status(TABLES)
  const standings = yield* state.standings(rows.map((r) => r.stream))
  const health = rows.map((status): StreamHealth => {
    const unavailable = standings.get(status.stream)!.unavailable
    return { status, health: healthOf(status, unavailable), isStream: STREAM_NAMES.has(status.stream), unavailable, lastSuccessAt: epochOfUtcText(status.last_success) }
  })
  const order = (h: StreamHealth) => (h.isStream ? STREAMS.indexOf(h.status.stream as (typeof STREAMS)[number]) : STREAMS.length)
  return [...health].sort((a, b) => order(a) - order(b) || a.status.stream.localeCompare(b.status.stream))
})
