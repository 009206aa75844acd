// What the hosting in front of a real store does under load: a token-bucket rate limit answering 429 with the
// headers hosts send, and pages that get slower once more requests are in flight than the server has workers.
import type { Reply } from "./reply.ts"

/** Which rate-limit headers the answers carry. */
export type RateLimitHeaders = "ratelimit" | "x-ratelimit" | "none"

export interface RateLimitOptions {
  /** Requests per second the bucket refills. */
  rps: number
  /** Requests allowed at once after a quiet spell (the bucket's size); default: rps. */
  burst?: number
  /**
   * "ratelimit" (default): RateLimit-Limit/-Remaining/-Reset, Reset in seconds from now (the IETF draft);
   * "x-ratelimit": X-RateLimit-*, Reset a Unix time (GitHub, Mautic); "none": a bare 429 with Retry-After.
   */
  headers?: RateLimitHeaders
}

export interface LatencyKneeOptions {
  /**
   * A page of 100 rows' latency; a request asking for fewer rows takes less, as on a real WooCommerce (a fifth of it
   * for one row: 60 ms against 300 ms measured on WooCommerce 10.0.2), so a client cannot take one for the other.
   */
  baseMs: number
  /** Requests in flight the server handles without slowing down. */
  knee: number
  /** Latency added per request in flight beyond the knee. */
  perExtraMs: number
}

export interface ThrottleOptions {
  rateLimit?: RateLimitOptions
  latency?: LatencyKneeOptions
}

/** The throttle's verdict on one request. */
export interface Admission {
  /** The 429 that replaces the answer, when the bucket is empty. */
  readonly reply: Reply | undefined
  /** Headers for the real answer. */
  readonly headers: Readonly<Record<string, string>>
  /** Latency from the load. */
  readonly delayMs: number
  /** Call once the answer is written (or the connection gone): the request no longer counts as in flight. */
  readonly release: () => void
}

const RATE_LIMITED = { code: "rest_too_many_requests", message: "Too many requests. Please slow down.", data: { status: 429 } }

/** Tokens refill continuously at `rps` up to `burst`; each request takes one. */
export class TokenBucket {
  private tokens: number
  private updatedMs: number | undefined

  constructor(
    readonly rps: number,
    readonly burst: number,
  ) {
    this.tokens = burst
  }

  private refill(nowMs: number): void {
    if (this.updatedMs !== undefined) this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.updatedMs) / 1000) * this.rps)
    this.updatedMs = nowMs
  }

  /** Takes a token if there is one; the state after it for the headers. */
  take(nowMs: number): { ok: boolean; remaining: number; resetSeconds: number; retryAfterSeconds: number } {
    this.refill(nowMs)
    const ok = this.tokens >= 1
    if (ok) this.tokens -= 1
    return {
      ok,
      remaining: Math.floor(this.tokens),
      // Seconds until the bucket is full again: what the quota's reset means for a bucket.
      resetSeconds: Math.ceil((this.burst - this.tokens) / this.rps),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - this.tokens) / this.rps))
    }
  }
}

const rateHeaders = (kind: RateLimitHeaders, limit: number, remaining: number, resetSeconds: number, epochMs: number): Record<string, string> => {
  switch (kind) {
    case "none":
      return {}
    case "ratelimit":
      return { "RateLimit-Limit": String(limit), "RateLimit-Remaining": String(remaining), "RateLimit-Reset": String(resetSeconds) }
    case "x-ratelimit":
      return {
        "X-RateLimit-Limit": String(limit),
        "X-RateLimit-Remaining": String(remaining),
        "X-RateLimit-Reset": String(Math.ceil(epochMs / 1000) + resetSeconds)
      }
  }
}

/** A request's share of a page of 100's latency: a fifth for its fixed cost, the rest by the rows asked for. */
const sizeFactor = (rows: number) => 0.2 + 0.8 * Math.min(100, Math.max(1, rows)) / 100

export class Throttle {
  private readonly bucket: TokenBucket | undefined
  private inFlight = 0
  /** Requests in flight as each admitted request arrived (itself included): the load the client put on the server. */
  readonly inFlightAtArrival: number[] = []

  constructor(
    private readonly options: ThrottleOptions,
    /** Real time for the bucket and the load; the epoch the server's clock shows (X-RateLimit-Reset, like the Date header). */
    private readonly clocks: { nowMs: () => number; epochMs: () => number },
  ) {
    const limit = options.rateLimit
    this.bucket = limit === undefined ? undefined : new TokenBucket(limit.rps, limit.burst ?? limit.rps)
  }

  /** `rows`: how many rows the request asks for (per_page, or 1 for one document), which its latency grows with. */
  admit(rows: number): Admission {
    const kind = this.options.rateLimit?.headers ?? "ratelimit"
    let headers: Record<string, string> = {}
    if (this.bucket !== undefined) {
      const taken = this.bucket.take(this.clocks.nowMs())
      headers = rateHeaders(kind, this.bucket.burst, taken.remaining, taken.resetSeconds, this.clocks.epochMs())
      if (!taken.ok) {
        const reply: Reply = { status: 429, body: RATE_LIMITED, headers: { ...headers, "Retry-After": String(taken.retryAfterSeconds) } }
        return { reply, headers, delayMs: 0, release: () => {} }
      }
    }
    this.inFlight++
    this.inFlightAtArrival.push(this.inFlight)
    const knee = this.options.latency
    const delayMs = knee === undefined ? 0 : knee.baseMs * sizeFactor(rows) + knee.perExtraMs * Math.max(0, this.inFlight - knee.knee)
    let released = false
    const release = () => {
      if (released) return
      released = true
      this.inFlight--
    }
    return { reply: undefined, headers, delayMs, release }
  }
}
