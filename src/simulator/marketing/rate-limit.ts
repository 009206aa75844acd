// The service's optional API rate limit: a number of calls per hour, counted in a window that
// starts with the first call, announced in X-RateLimit-* headers and enforced with a 429.
import { ApiError } from "./errors.ts"
import type { Clock } from "./options.ts"

const WINDOW_MS = 60 * 60 * 1000

export interface RateLimitState {
  limit: number
  remaining: number
  /** Unix time (seconds) at which the window resets. */
  reset: number
}

export const rateLimitHeaders = ({ limit, remaining, reset }: RateLimitState): Record<string, string> => ({
  "X-RateLimit-Limit": String(limit),
  "X-RateLimit-Remaining": String(remaining),
  "X-RateLimit-Reset": String(reset),
})

export const rateLimitExceeded = (state: RateLimitState, retryAfterSeconds?: number): ApiError =>
  new ApiError(
    429,
    { code: 429, message: `You exceeded the rate limit of ${state.limit} API calls per hour.` },
    {
      ...rateLimitHeaders(state),
      ...(retryAfterSeconds === undefined ? {} : { "Retry-After": String(retryAfterSeconds) }),
    },
  )

export class HourlyRateLimit {
  private windowStart = 0
  private used = 0

  constructor(
    readonly limit: number,
    private readonly clock: Clock,
  ) {}

  /** Counts one call; throws the 429 once the window's calls are used up. */
  hit(): RateLimitState {
    const now = this.clock.now()
    if (this.used === 0 || now >= this.windowStart + WINDOW_MS) {
      this.windowStart = now
      this.used = 0
    }
    this.used++
    const state = {
      limit: this.limit,
      remaining: Math.max(0, this.limit - this.used),
      reset: Math.ceil((this.windowStart + WINDOW_MS) / 1000),
    }
    if (this.used > this.limit) throw rateLimitExceeded(state)
    return state
  }
}
