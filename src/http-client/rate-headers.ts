import { retryAfterMs } from "./retry-after.js"

/** What one answer says about the server's request quota. */
export interface Quota {
  /** Requests left before the server refuses, when it says. */
  readonly remaining: number | undefined
  /** Milliseconds until the quota is whole again, when it says. */
  readonly resetMs: number | undefined
  /** Milliseconds the server asked every request to wait (Retry-After); 0 when it did not say. */
  readonly retryAfterMs: number
}

const numberOf = (value: string | undefined): number | undefined => {
  if (value === undefined || value.trim() === "") return undefined
  const n = Number(value)
  return Number.isFinite(n) && n >= 0 ? n : undefined
}

/** A reset this large is a Unix time (GitHub, Mautic, WooCommerce's storefront), not seconds from now (the IETF draft). */
const UNIX_TIME_FROM = 1_000_000_000

/** The structured `RateLimit: "policy";r=5;t=30` of the draft's later versions. */
const structuredField = (value: string | undefined, key: "r" | "t") => {
  const m = value === undefined ? null : new RegExp(`(?:^|[;,\\s])${key}=(\\d+)`).exec(value)
  return m === null ? undefined : Number(m[1])
}

/**
 * The quota an answer's headers state: `RateLimit-Remaining`/`-Reset`, `X-RateLimit-*`, or the structured
 * `RateLimit` field, and `Retry-After`. A reset given as a Unix time is read against the server's own clock (its
 * Date header), so a client whose clock is off waits as long as the server meant. `headers` are lower-cased.
 */
export const quotaOf = (headers: Readonly<Record<string, string>>, nowMs: number): Quota => {
  const remaining = numberOf(headers["ratelimit-remaining"] ?? headers["x-ratelimit-remaining"]) ?? structuredField(headers["ratelimit"], "r")
  const reset = numberOf(headers["ratelimit-reset"] ?? headers["x-ratelimit-reset"]) ?? structuredField(headers["ratelimit"], "t")
  const serverNow = headers["date"] === undefined ? Number.NaN : Date.parse(headers["date"])
  const resetMs = reset === undefined
    ? undefined
    : reset >= UNIX_TIME_FROM
    ? Math.max(0, reset * 1000 - (Number.isFinite(serverNow) ? serverNow : nowMs))
    : reset * 1000
  return { remaining, resetMs, retryAfterMs: retryAfterMs(headers, nowMs) }
}
