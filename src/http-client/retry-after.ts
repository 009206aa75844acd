/** Statuses worth another try: a timeout, a rate limit, a server or gateway failure. */
export const isTransientStatus = (status: number) => status === 408 || status === 429 || status >= 500

/** How long the server asked us to wait (Retry-After as delta seconds or HTTP date, or RateLimit-Retry-After); 0 when it did not say. */
export const retryAfterMs = (headers: Readonly<Record<string, string>>, now: number): number => {
  const value = headers["retry-after"] ?? headers["ratelimit-retry-after"]
  if (value === undefined) return 0
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isFinite(date) ? Math.max(0, date - now) : 0
}
