/**
 * Every time a JSON output (`status --json`, `stores list --json`) prints is ISO 8601 in UTC to the second:
 * `2026-11-26T17:22:36Z`. The warehouse's queries give UTC times as `2026-11-26 17:22:36` (what the tables show) or
 * with milliseconds; this writes each the one way. Null stays null; a text that is no time is returned as it is.
 */
export const isoUtc = <T extends string | null | undefined>(at: T): T | string => {
  if (at === null || at === undefined) return at
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?(\.\d+)?Z?$/.exec(at)
  return m === null ? at : `${m[1]}T${m[2]}${m[3] ?? ":00"}Z`
}
