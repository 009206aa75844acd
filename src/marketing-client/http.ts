import type { MarketingSettings } from "../config/settings.js"
import type { Answer } from "../http-client/send.js"
import { retryAfterMs } from "../http-client/retry-after.js"
import { type RetryPolicy as HttpRetryPolicy, retrySchedule } from "../http-client/retry.js"

/** How hard a request is retried. Delays grow exponentially with jitter, never shorter than the service asked. */
export interface RetryPolicy extends HttpRetryPolicy {
  /** A Retry-After longer than this is not waited out: the run gives up and leaves the work for the next one. */
  readonly maxServerWaitMs: number
}

export const marketingRetryPolicy = (settings: MarketingSettings): RetryPolicy => ({
  maxAttempts: settings.maxAttempts,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: settings.requestTimeoutMs,
  maxServerWaitMs: 120_000
})

/** The shared retry schedule with the marketing service's limit on server-requested waits. */
export const marketingSchedule = <E>(policy: RetryPolicy, label: string, transient: (e: E) => boolean) =>
  retrySchedule(policy, { service: "marketing", label, transient, maxServerWaitMs: policy.maxServerWaitMs })

/** What the service said in an error answer: its `errors[0].message`, an OAuth description, or a short text. */
export const serviceMessage = (answer: Pick<Answer, "body" | "text">): string | undefined => {
  const body = answer.body as Record<string, unknown> | undefined
  if (body && typeof body === "object") {
    const errors = body.errors
    const first = Array.isArray(errors) ? errors[0] : errors && typeof errors === "object" ? Object.values(errors)[0] : undefined
    if (first && typeof first === "object" && typeof (first as { message?: unknown }).message === "string") {
      return (first as { message: string }).message
    }
    for (const key of ["error_description", "message", "error"]) if (typeof body[key] === "string") return body[key] as string
  }
  const title = /<title>([^<]*)<\/title>/i.exec(answer.text)?.[1]
  const text = (title ?? answer.text).replace(/\s+/g, " ").trim()
  return text === "" ? undefined : text.slice(0, 200)
}

/**
 * How long the service asked us to wait: Retry-After when present. Without it, a 429's X-RateLimit-Reset is
 * only a hint, capped at the policy's longest delay: an hourly quota can reset an hour away, and a run that
 * keeps being refused simply gives up and leaves the work pending.
 */
export const serverWaitMs = (answer: Pick<Answer, "status" | "headers">, now: number, policy: RetryPolicy): number => {
  if (answer.headers["retry-after"] !== undefined) return retryAfterMs(answer.headers, now)
  const reset = Number(answer.headers["x-ratelimit-reset"])
  if (answer.status !== 429 || !Number.isFinite(reset)) return 0
  return Math.min(policy.maxDelayMs, Math.max(0, reset * 1000 - now))
}
