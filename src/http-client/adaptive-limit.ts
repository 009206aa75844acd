import { Clock, Context, Duration, Effect, Exit, Layer, LogLevel } from "effect"
import { allowed, type ControlState, type Decision, initialControl, observe, settled } from "./concurrency-control.js"
import { quotaOf } from "./rate-headers.js"

/** How a remote service is paced. */
export interface AdaptiveLimitOptions {
  /** Names the service in log lines ("store"). */
  readonly service: string
  /** Requests in flight never exceed this. */
  readonly maxConcurrency: number
  /** Requests in flight at first (adaptive only). */
  readonly startConcurrency: number
  /** Request starts per second never exceed this (undefined: no ceiling). */
  readonly maxRps: number | undefined
  /** false: always `maxConcurrency` in flight; the server's own pauses (Retry-After, an exhausted quota) still hold. */
  readonly adaptive: boolean
}

/** What an exchange must tell the limit about its answer. */
export interface Answered {
  readonly status: number
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>
}

/** The pace since the last summary. */
export interface PaceSummary {
  readonly requests: number
  /** From the first request sent to the last answer. */
  readonly seconds: number
  readonly requestsPerSecond: number
  /** Requests in flight the limit settled at (the mean of its last decisions). */
  readonly concurrency: number
  readonly maxConcurrency: number
  /** Answers 429. */
  readonly throttled: number
  readonly backoffs: number
  /** Times every request waited for the server's quota or Retry-After. */
  readonly pauses: number
}

export class AdaptiveLimit extends Context.Tag("shopsync/AdaptiveLimit")<AdaptiveLimit, {
  /**
   * Runs one exchange when the pace allows (a slot in flight, the server's pause over, the rate ceiling kept) and
   * learns from its answer: status, rate-limit headers, latency. Failures without an answer teach nothing. `kind`
   * names what the request asks for (a listing of one row, a page of 100): latencies are compared within a kind.
   */
  readonly run: <A extends Answered, E, R>(exchange: Effect.Effect<A, E, R>, kind?: string) => Effect.Effect<A, E, R>
  /** The pace since the last call, which starts the next period. */
  readonly summary: Effect.Effect<PaceSummary>
  /**
   * Logs the summary: at info when the server held requests back (429s, pauses for its quota), which an operator may
   * want to look into; else at `calm`.
   */
  readonly logSummary: (calm: LogLevel.LogLevel) => Effect.Effect<void>
}>() {}

/** A wait longer than this is left to each request's retry (a reset that far off is more likely a wrong clock). */
const MAX_PAUSE_MS = 10 * 60_000

interface Pace {
  pausedUntil: number
  nextSlot: number
  /** Requests the server still allows, as estimated from the last answer that said, minus those sent since. */
  budget: number | undefined
  resetAt: number | undefined
  /** Requests sent so far: a request's number says how many were sent after it when its answer comes. */
  sent: number
  inFlight: number
  period: { requests: number; throttled: number; backoffs: number; pauses: number; first: number | undefined; last: number }
}

interface Ticket {
  readonly number: number
  readonly epoch: number
  readonly startedAt: number
}

interface Sent extends Ticket {
  /** Requests in flight as this one was sent, itself included. */
  readonly inFlight: number
  readonly kind: string
}

const freshPeriod = (): Pace["period"] => ({ requests: 0, throttled: 0, backoffs: 0, pauses: 0, first: undefined, last: 0 })

/** When a request may start (a ticket) or how long to wait first. */
const reserve = (pace: Pace, control: ControlState, interval: number, now: number): Ticket | number => {
  if (pace.budget !== undefined && pace.budget <= 0) {
    if (pace.resetAt !== undefined && pace.resetAt > now) pause(pace, pace.resetAt)
    pace.budget = undefined
  }
  const at = Math.max(pace.pausedUntil, pace.nextSlot)
  if (at > now) return at - now
  pace.nextSlot = now + interval
  if (pace.budget !== undefined) pace.budget--
  pace.period.requests++
  pace.period.first ??= now
  return { number: ++pace.sent, epoch: control.epoch, startedAt: now }
}

/** Holds every request until `until`; true when that starts or lengthens a pause. */
const pause = (pace: Pace, until: number) => {
  if (until <= pace.pausedUntil) return false
  pace.pausedUntil = until
  pace.period.pauses++
  return true
}

/** What the answer says of the server's quota, applied to every request to come; true when a pause began. */
const learnQuota = (pace: Pace, ticket: Sent, answer: Answered, now: number) => {
  const quota = quotaOf(answer.headers, now)
  const waited = quota.retryAfterMs > 0 && pause(pace, now + Math.min(quota.retryAfterMs, MAX_PAUSE_MS))
  if (quota.resetMs !== undefined) pace.resetAt = now + Math.min(quota.resetMs, MAX_PAUSE_MS)
  if (quota.remaining === undefined) return waited
  // The requests sent after this one may or may not have been counted in it: assume they were not.
  pace.budget = quota.remaining - (pace.sent - ticket.number)
  return (quota.remaining === 0 && pace.resetAt !== undefined && pause(pace, pace.resetAt)) || waited
}

const backoffText = (service: string, d: Decision, after: number) =>
  d.kind === "overload"
    ? `${service}: the server says it is overloaded; ${after} requests in flight from now (were ${d.before})`
    : d.kind === "latency"
    ? `${service}: answers slowed to ${Math.round(d.latencyMs)} ms (best ${Math.round(d.baselineMs)} ms); ${after} requests in flight from now (were ${d.before})`
    : ""

export const makeAdaptiveLimit = (options: AdaptiveLimitOptions) =>
  Effect.gen(function*() {
    const ceiling = Math.max(1, options.maxConcurrency)
    const control = initialControl(options.adaptive ? Math.max(1, options.startConcurrency) : ceiling, ceiling)
    const slots = yield* Effect.makeSemaphore(allowed(control))
    const interval = options.maxRps === undefined ? 0 : 1000 / options.maxRps
    const pace: Pace = { pausedUntil: 0, nextSlot: 0, budget: undefined, resetAt: undefined, sent: 0, inFlight: 0, period: freshPeriod() }

    const ticket: Effect.Effect<Ticket> = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const t = reserve(pace, control, interval, now)
      return typeof t === "number" ? Effect.zipRight(Effect.sleep(Duration.millis(t)), ticket) : Effect.succeed(t)
    })

    const learn = (t: Sent, answer: Answered, now: number) =>
      Effect.suspend(() => {
        pace.period.last = now
        const paused = learnQuota(pace, t, answer, now)
          ? Effect.logDebug(`${options.service}: the server's quota asks every request to wait ${pace.pausedUntil - now} ms`)
          : Effect.void
        const overloaded = answer.status === 429 || answer.status === 503
        if (answer.status === 429) pace.period.throttled++
        if (!options.adaptive) return paused
        const latencyMs = overloaded || answer.status >= 500 ? undefined : now - t.startedAt
        const decision = observe(control, t.epoch, { overloaded, latencyMs, inFlight: t.inFlight, kind: t.kind })
        if (decision === undefined) return paused
        const resize = Effect.zipRight(paused, slots.resize(allowed(control)))
        if (decision.kind === "increase" || decision.kind === "hold" || decision.kind === "probe") return resize
        pace.period.backoffs++
        return Effect.zipRight(resize, Effect.logDebug(backoffText(options.service, decision, allowed(control))))
      })

    const send = <A extends Answered, E, R>(t: Sent, exchange: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(exchange)
        if (Exit.isSuccess(exit)) yield* learn(t, exit.value, yield* Clock.currentTimeMillis)
        return yield* exit
      })

    const run = <A extends Answered, E, R>(exchange: Effect.Effect<A, E, R>, kind = "") =>
      slots.withPermits(1)(Effect.flatMap(ticket, (t) =>
        Effect.acquireUseRelease(
          Effect.sync((): Sent => ({ ...t, inFlight: ++pace.inFlight, kind })),
          (sent) => send(sent, exchange),
          () => Effect.sync(() => void pace.inFlight--)
        )))

    const summary = Effect.sync((): PaceSummary => {
      const p = pace.period
      pace.period = freshPeriod()
      const seconds = p.first === undefined ? 0 : (p.last - p.first) / 1000
      return {
        requests: p.requests,
        seconds: Math.round(seconds * 100) / 100,
        requestsPerSecond: seconds > 0 ? Math.round((p.requests / seconds) * 10) / 10 : 0,
        concurrency: options.adaptive ? Math.round(settled(control) * 10) / 10 : ceiling,
        maxConcurrency: ceiling,
        throttled: p.throttled,
        backoffs: p.backoffs,
        pauses: p.pauses
      }
    })

    const logSummary = (calm: LogLevel.LogLevel) => Effect.flatMap(summary, (s) =>
      Effect.logWithLevel(s.throttled + s.pauses > 0 ? LogLevel.Info : calm,
        `${options.service} pace: ${s.requests} requests at ${s.requestsPerSecond}/s, ${s.concurrency} in flight ` +
        `(ceiling ${s.maxConcurrency}${options.maxRps === undefined ? "" : `, ${options.maxRps}/s`}); ${s.throttled} answered 429, ` +
        `${s.backoffs} back-offs, ${s.pauses} pauses for the server's quota`).pipe(
          Effect.annotateLogs({ event: "pace", ...s })
        ))

    return AdaptiveLimit.of({ run, summary, logSummary })
  })

export const AdaptiveLimitLive = (options: AdaptiveLimitOptions) => Layer.effect(AdaptiveLimit, makeAdaptiveLimit(options))
