import { Duration, Effect, Schedule } from "effect"
import { isTransportFailed, isUnusableAnswer } from "./send.js"

/** How hard a request is retried. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number
  /** The first retry's delay before jitter; each further retry doubles it. */
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  /** How long one attempt may take, answer read included. */
  readonly timeoutMs: number
}

/** What a caller tells the schedule about its failures. */
export interface RetryRules<E> {
  /** Names the service in the log line ("store", "marketing"). */
  readonly service: string
  /** What is retried, e.g. "GET https://shop.test/orders". */
  readonly label: string
  /** Whether another attempt may succeed. */
  readonly transient: (e: E) => boolean
  /** A server wait longer than this is not waited out: the retries end at once. */
  readonly maxServerWaitMs?: number
}

/** How long the server asked to wait, as carried by the failure. */
const serverWaitMs = (e: unknown): number => (isUnusableAnswer(e) ? e.serverWaitMs : 0)

/** The reason a log line gives: a system code, a status, or the failure's message. */
const reasonOf = (e: unknown): string =>
  isTransportFailed(e) ? e.reason : isUnusableAnswer(e) ? `${e.answer.status}` : e instanceof Error ? e.message : String(e)

/** Exponential from the base, doubling, capped, with jitter between half and the full step (whole ms). */
const backoff = (policy: RetryPolicy) =>
  Schedule.exponential(Duration.millis(policy.baseDelayMs)).pipe(
    Schedule.modifyDelay((_, d) => Duration.min(d, Duration.millis(policy.maxDelayMs))),
    Schedule.jitteredWith({ min: 0.5, max: 1 }),
    Schedule.modifyDelay((_, d) => Duration.millis(Math.round(Duration.toMillis(d))))
  )

/** Outputs the attempts made so far, and stops once `maxAttempts` have been made. */
const attemptsMade = (policy: RetryPolicy) => Schedule.map(Schedule.recurs(policy.maxAttempts - 1), (retries) => retries + 1)

/** Outputs the failure, delayed by the wait the server asked for. */
const serverWait = <E>() => Schedule.addDelay(Schedule.identity<E>(), (e) => Duration.millis(serverWaitMs(e)))

/**
 * The retry schedule of both remote services, for `Effect.retry`: transient failures only, at most
 * `maxAttempts` attempts, each wait the backoff step or the wait an UnusableAnswer carries (the server's
 * Retry-After), whichever is longer (intersected schedules wait for the later of the two). Logs a warning
 * per retry. Its output is the number of attempts made, also when it stops, so `Effect.retryOrElse` can
 * say how many there were.
 */
export const retrySchedule = <E>(policy: RetryPolicy, rules: RetryRules<E>): Schedule.Schedule<number, E> => {
  const maxWaitMs = rules.maxServerWaitMs ?? Infinity
  return Schedule.intersect(attemptsMade(policy), serverWait<E>()).pipe(
    Schedule.intersect(backoff(policy)),
    Schedule.map(([[attempts, failure]]) => ({ attempts, failure })),
    Schedule.whileInput((e: E) => rules.transient(e) && serverWaitMs(e) <= maxWaitMs),
    Schedule.modifyDelayEffect(({ attempts, failure }, delay) =>
      Effect.as(
        Effect.logWarning(`${rules.service}: ${reasonOf(failure)} on ${rules.label}; ` +
          `retrying in ${Duration.toMillis(delay)} ms (attempt ${attempts + 1} of ${policy.maxAttempts})`),
        delay
      )),
    Schedule.map(({ attempts }) => attempts)
  )
}
