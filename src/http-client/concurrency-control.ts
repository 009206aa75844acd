/**
 * The concurrency half of the adaptive limit: how many requests may be in flight, learnt the way TCP learns its
 * window. Each decision uses one window of answers (as many as the limit), all to requests sent after the previous
 * decision. An overloaded answer (429, 503) halves the limit. Two windows in a row whose median latency rose well
 * above the best window's (the queue at the server grows: TCP Vegas' signal) cut it by a fifth; in slow start one
 * such window halves it, back to the last window that was fine. A healthy window raises it: doubling at first (slow
 * start), then by one per window up to just below the limit of the last decrease, and by a fraction per window
 * beyond, so the limit dwells where the trouble began instead of bouncing into it. A healthy window whose requests
 * never filled the limit says nothing of a higher one, so it raises nothing (RFC 7661's rule for an idle TCP window):
 * a quiet start would otherwise lift the limit to the ceiling untried, and the first busy moment would send that many.
 *
 * Latency is compared within a kind of request (the caller names it: a listing of one row and a page of 100 are two
 * kinds): a real WooCommerce answers `per_page=1` in 60 ms and a page of 100 orders in 250–300 ms at the same load, so
 * one best for both would read every page as a queue and hold the limit at one request in flight.
 *
 * A kind first seen above the starting limit may have met a queue already, so its first best proves nothing (the
 * limit once doubled from 8 to 16 on a window of two such kinds, 573 ms "best", against a store whose knee was 4).
 * Once such a kind has been answered twice, its window is a probe: the limit halves for one window, which measures
 * the new kinds where nothing queues. Answers about as fast as the kind's first ones restore the limit; much faster
 * ones mean the first had queued: the limit stays halved (a back-off like any other) and probes below again, until a
 * halving no longer speeds them up. A kind answered once so far (a sync's head, its one page, a count) is neither
 * probed nor judged, and its window raises nothing: a probe per such kind cost each sync against a store answering in
 * 250 ms a round trip at half pace per kind.
 */

/** Tunings, with why. */
export const CONTROL = {
  /** A window this much slower than the best (plus the slack) means requests queue at the server. */
  tolerance: 1.25,
  /** Absolute slack: on loopback a millisecond of jitter is not a queue. */
  slackMs: 5,
  overloadFactor: 0.5,
  latencyFactor: 0.8,
  /** The best latency seen creeps up 1 % per window, so a store that got slower for good is not held against its past. */
  baselineDrift: 1.01,
  /** Decisions whose limits make the settled figure. */
  settledOver: 16
} as const

export interface ControlState {
  limit: number
  /** The starting limit: a kind first seen at or below it met no queue of ours. */
  readonly start: number
  readonly ceiling: number
  slowStart: boolean
  /** The limit before the last decrease. */
  troubleAt: number
  /** Decisions made so far: a request carries the epoch it was sent in, and only answers of this epoch count. */
  epoch: number
  lastDecision: Decision["kind"] | undefined
  answers: number
  /** Slow windows in a row. */
  slowWindows: number
  /** Latencies of the window's answers sent in it that said nothing of load, with their kind of request. */
  latencies: Array<Latency>
  /** The most requests in flight as one of the window's own was sent. */
  peakInFlight: number
  overloaded: boolean
  /** The best window median of each kind of request; `proven` once measured at or below the start or in a probe. */
  baselines: Map<string, Baseline>
  /** The limit a probe halved (undefined: no probe under way). */
  probeFrom: number | undefined
  recentLimits: number[]
}

interface Baseline {
  readonly ms: number
  readonly proven: boolean
  /** Answers counted while unproven. */
  readonly answers: number
}

export const initialControl = (start: number, ceiling: number): ControlState => ({
  limit: Math.min(start, ceiling),
  start: Math.min(start, ceiling),
  ceiling,
  slowStart: true,
  troubleAt: Number.POSITIVE_INFINITY,
  epoch: 0,
  lastDecision: undefined,
  answers: 0,
  slowWindows: 0,
  latencies: [],
  peakInFlight: 0,
  overloaded: false,
  baselines: new Map(),
  probeFrom: undefined,
  recentLimits: []
})

/** Requests allowed in flight. */
export const allowed = (s: ControlState) => Math.max(1, Math.floor(s.limit))

export type Decision =
  | { readonly kind: "increase" }
  | { readonly kind: "hold" }
  | { readonly kind: "probe" }
  | { readonly kind: "overload"; readonly before: number }
  | { readonly kind: "latency"; readonly before: number; readonly latencyMs: number; readonly baselineMs: number }

interface Latency {
  readonly kind: string
  readonly ms: number
}

export interface Observation {
  /** 429 or 503: the server says it has too much. */
  readonly overloaded: boolean
  /** The exchange's time, for answers that say nothing of load (undefined: no answer, or an overload). */
  readonly latencyMs: number | undefined
  /** What kind of request it was: only latencies of one kind are compared. */
  readonly kind: string
  /** Requests in flight as this one was sent, itself included. */
  readonly inFlight: number
}

const decrease = (s: ControlState, factor: number) => {
  s.troubleAt = s.limit
  s.limit = Math.max(1, s.limit * factor)
  s.slowStart = false
}

const increase = (s: ControlState) => {
  const step = s.slowStart ? allowed(s) : allowed(s) < Math.floor(s.troubleAt) - 1 ? 1 : 1 / allowed(s)
  s.limit = Math.min(s.ceiling, s.limit + step)
}

/** The middle value: one answer held up by the client's own work (a page parsed, a GC) does not move it. */
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const byKind = (latencies: ReadonlyArray<Latency>) => {
  const kinds = new Map<string, Latency[]>()
  for (const l of latencies) kinds.set(l.kind, [...(kinds.get(l.kind) ?? []), l])
  return kinds
}

const medianMs = (latencies: ReadonlyArray<Latency>) => median(latencies.map((l) => l.ms))

/**
 * The window's latency against the best, from the kinds with a proven best: each kind's best moves to its window
 * median when that is lower (drifting up otherwise), and each answer is measured against its own kind's best. The
 * window says the median of those, or the median of one kind's when that is higher and rests on two answers or more:
 * a queue shows on the kinds that meet it, while a window filled with another kind's answers, fast against a best
 * taken at a slow moment, would otherwise vouch for more. Undefined when no answer is of a kind with a proven best.
 */
const windowLatency = (s: ControlState, kinds: ReadonlyMap<string, ReadonlyArray<Latency>>) => {
  const all: Array<Slowness> = []
  let worst: Slowness | undefined
  for (const [kind, latencies] of kinds) {
    const best = s.baselines.get(kind)
    if (best?.proven !== true) continue
    const baselineMs = Math.min(medianMs(latencies), best.ms * CONTROL.baselineDrift)
    s.baselines.set(kind, { ms: baselineMs, proven: true, answers: 0 })
    const ratios = latencies.map((l) => (l.ms - CONTROL.slackMs) / baselineMs)
    for (const ratio of ratios) all.push({ ratio, baselineMs })
    const kindRatio = median(ratios)
    if (ratios.length >= 2 && kindRatio > (worst?.ratio ?? 0)) worst = { ratio: kindRatio, baselineMs }
  }
  if (all.length === 0) return undefined
  const overall = { ratio: median(all.map((m) => m.ratio)), baselineMs: median(all.map((m) => m.baselineMs)) }
  const { ratio, baselineMs } = worst !== undefined && worst.ratio > overall.ratio ? worst : overall
  return { ratio, baselineMs, latencyMs: ratio * baselineMs + CONTROL.slackMs }
}

interface Slowness {
  readonly ratio: number
  readonly baselineMs: number
}

/**
 * Records the best of the kinds not yet proven: proven when measured at or below the start, or in a probe whose
 * answers were not much faster than the kind's best before it. Returns the first kind's best before and after when
 * they were (its earlier answers had queued: it stays unproven, for the next probe below).
 */
const learnNewKinds = (s: ControlState, kinds: ReadonlyMap<string, ReadonlyArray<Latency>>, proving: boolean) => {
  let queued: { readonly latencyMs: number; readonly baselineMs: number } | undefined
  for (const [kind, latencies] of kinds) {
    const best = s.baselines.get(kind)
    if (best?.proven === true) continue
    const m = medianMs(latencies)
    const faster = proving && best !== undefined && best.ms - CONTROL.slackMs > CONTROL.tolerance * m
    if (faster) queued ??= { latencyMs: best.ms, baselineMs: m }
    s.baselines.set(kind, { ms: Math.min(m, best?.ms ?? m), proven: proving && !faster, answers: (best?.answers ?? 0) + latencies.length })
  }
  return queued
}

/**
 * The unproven kinds of this window: "recurring" when one has been answered twice or more (its window is a probe),
 * "once" when all were answered once so far. A kind met once (a stream's head, its one page, a count) is not probed:
 * that would halve the pace for a round trip per kind. But its answer may hide a queue, so its window raises nothing.
 */
const unproven = (s: ControlState, kinds: ReadonlyMap<string, unknown>): "none" | "once" | "recurring" => {
  let found: "none" | "once" = "none"
  for (const kind of kinds.keys()) {
    const best = s.baselines.get(kind)
    if (best?.proven !== false) continue
    if (best.answers >= 2) return "recurring"
    found = "once"
  }
  return found
}

/** A probe's end: unproven kinds it did not see are measured afresh when they come back (probing then). */
const forgetUnproven = (s: ControlState, kinds: ReadonlyMap<string, unknown>) => {
  for (const [kind, best] of s.baselines) if (!best.proven && !kinds.has(kind)) s.baselines.delete(kind)
}

const startProbe = (s: ControlState) => {
  s.probeFrom = s.limit
  s.limit = Math.max(1, s.limit / 2)
}

const decide = (s: ControlState): Decision => {
  const before = allowed(s)
  const probeFrom = s.probeFrom
  s.probeFrom = undefined
  if (s.overloaded) {
    decrease(s, CONTROL.overloadFactor)
    return { kind: "overload", before }
  }
  const kinds = byKind(s.latencies)
  const judged = windowLatency(s, kinds)
  const atStart = before <= s.start
  const queued = learnNewKinds(s, kinds, probeFrom !== undefined || atStart)
  if (judged !== undefined && judged.ratio > CONTROL.tolerance) {
    // In slow start the window before this doubling was fine: go back to it at once. Later, one slow window may be
    // the client's own hiccup (a busy event loop reads answers late): a second in a row is the server.
    if (!s.slowStart && ++s.slowWindows < 2) return { kind: "hold" }
    s.slowWindows = 0
    decrease(s, s.slowStart ? 0.5 : CONTROL.latencyFactor)
    return { kind: "latency", before, latencyMs: judged.latencyMs, baselineMs: judged.baselineMs }
  }
  s.slowWindows = 0
  if (probeFrom !== undefined) forgetUnproven(s, kinds)
  if (probeFrom !== undefined && queued !== undefined) {
    // The probe's answers were much faster than the new kind's earlier ones: those had queued. Stay down, and probe
    // below until a halving no longer speeds the kind up.
    s.troubleAt = probeFrom
    s.slowStart = false
    startProbe(s)
    return { kind: "latency", before: Math.floor(probeFrom), ...queued }
  }
  if (probeFrom !== undefined) {
    s.limit = probeFrom
    return { kind: "hold" }
  }
  const fresh = unproven(s, kinds)
  if (fresh === "recurring") {
    startProbe(s)
    return { kind: "probe" }
  }
  // A window of new kinds says nothing of a queue, except at the start, where none of ours could have formed.
  if ((judged === undefined && !atStart) || fresh === "once" || s.peakInFlight < allowed(s)) return { kind: "hold" }
  increase(s)
  return { kind: "increase" }
}

/**
 * Counts one answer to a request sent in `epoch`; once the window is full (or at once on an overload), decides
 * and opens the next window; a window without an answer sent in it waits for one. Returns the decision, if one was made.
 */
export const observe = (s: ControlState, epoch: number, o: Observation): Decision | undefined => {
  if (epoch === s.epoch - 1) {
    // Sent just before the last decision (a slot freed by its window's first answers): it fills the window, but its
    // latency says nothing of the new limit; its overload is news unless the last decision already answered one.
    if (o.overloaded && s.lastDecision !== "overload") s.overloaded = true
    else if (o.overloaded || o.latencyMs === undefined) return undefined
    s.answers++
  } else if (epoch === s.epoch) {
    s.answers++
    s.peakInFlight = Math.max(s.peakInFlight, o.inFlight)
    if (o.overloaded) s.overloaded = true
    else if (o.latencyMs !== undefined) s.latencies.push({ kind: o.kind, ms: o.latencyMs })
  } else return undefined
  if (!s.overloaded && (s.answers < allowed(s) || s.latencies.length === 0)) return undefined
  const decision = decide(s)
  s.lastDecision = decision.kind
  s.epoch++
  s.answers = 0
  s.latencies = []
  s.peakInFlight = 0
  s.overloaded = false
  s.recentLimits = [...s.recentLimits.slice(1 - CONTROL.settledOver), allowed(s)]
  return decision
}

/** The mean limit of the last decisions: where the limit settled. */
export const settled = (s: ControlState) =>
  s.recentLimits.length === 0 ? allowed(s) : s.recentLimits.reduce((a, b) => a + b, 0) / s.recentLimits.length
