import { Clock, Effect } from "effect"

/** Whole epoch seconds ↔ the API's naive GMT date-time (`dates_are_gmt=true`). */
export const toApiGmt = (second: number): string => new Date(second * 1000).toISOString().slice(0, 19)

export const fromApiGmt = (value: string): number => Math.floor(Date.parse(`${value}Z`) / 1000)

/** A store-local calendar day `YYYY-MM-DD` as an epoch second at UTC midnight (for day arithmetic only). */
export const dayToSecond = (day: string): number => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000)


export const DAY = 86_400

/** The latest calendar day anywhere (UTC+14): a store-local day after it has not begun for any store; a backfill up to "today" everywhere. */
export const latestDay: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms + 14 * 3600_000).toISOString().slice(0, 10))
