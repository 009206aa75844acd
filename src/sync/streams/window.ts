import type { Cursor } from "../cursor.js"
import type { RunMode } from "../context.js"
import { DAY, dayToSecond } from "../time.js"

/**
 * A backfill's [since, until] are store-local days, but the API filters are walked in GMT. Widening
 * by a day on each side covers every timezone; the extra rows are simply loaded as well.
 */
export const createdWindow = (mode: Extract<RunMode, { kind: "backfill" }>, upper: number): { lower: Cursor; upper: number } => ({
  lower: { at: dayToSecond(mode.since) - DAY - 1, id: null },
  upper: Math.min(upper, dayToSecond(mode.until) + 2 * DAY)
})
