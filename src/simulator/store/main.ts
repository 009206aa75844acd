// Command-line helpers for running the store simulator standalone (the CLI wiring lives elsewhere).
import type { FaultKind, FaultRule } from "../http/faults.ts"
import type { LatencyKneeOptions } from "../http/throttle.ts"

const KINDS: ReadonlyArray<FaultKind> = ["429", "500", "502", "503", "html5xx", "html404", "empty5xx", "drop", "latency"]

const duration = (text: string): number => {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text)
  if (m === null) throw new Error(`fault spec: "${text}" is not a duration (e.g. 250ms, 1.5s)`)
  return Math.round(Number(m[1]) * (m[2] === "s" ? 1000 : 1))
}

const number = (text: string, what: string): number => {
  const n = Number(text)
  if (text === "" || !Number.isFinite(n) || n < 0) throw new Error(`fault spec: ${what} must be a non-negative number, got "${text}"`)
  return n
}

/**
 * Parses a compact fault list, e.g. "429:0.05,drop:0.01,latency:250ms".
 *
 *   spec    = rule *( "," rule )
 *   rule    = kind [ ":" value ] *( ";" option )
 *   kind    = 429 | 500 | 502 | 503 | html5xx | html404 | empty5xx | drop | latency
 *   value   = a probability in [0, 1] for every kind but latency;
 *             for latency a duration ("250ms", "1.5s", bare number = ms), its probability then being 1
 *   option  = p=<probability> | times=<n> | after=<n requests> | path=</prefix> | retry=<seconds> | ms=<latency> | seed=<n>
 *             | burst=<n> (the same request is hit at most n times in a row)
 *
 * Example: "429:0.1;retry=2;path=/orders,latency:300ms;p=0.5,drop:0.01;after=20"
 */
export const parseFaultSpec = (spec: string): FaultRule[] =>
  spec
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((text) => {
      const [head, ...options] = text.split(";").map((s) => s.trim())
      const [kindText, value] = head!.split(":", 2) as [string, string | undefined]
      const kind = KINDS.find((k) => k === kindText.toLowerCase())
      if (kind === undefined) throw new Error(`fault spec: unknown kind "${kindText}" (one of ${KINDS.join(", ")})`)
      const rule: FaultRule = { kind }
      if (value !== undefined) {
        if (kind === "latency") rule.latencyMs = duration(value)
        else rule.probability = number(value, "probability")
      }
      for (const option of options) {
        const [key, v = ""] = option.split("=", 2) as [string, string | undefined]
        switch (key) {
          case "p":
            rule.probability = number(v, "p")
            break
          case "times":
            rule.times = number(v, "times")
            break
          case "after":
            rule.afterRequests = number(v, "after")
            break
          case "path":
            rule.pathPrefix = v
            break
          case "retry":
            rule.retryAfterSeconds = number(v, "retry")
            break
          case "ms":
            rule.latencyMs = duration(v)
            break
          case "seed":
            rule.seed = number(v, "seed")
            break
          case "burst":
            rule.maxInARow = number(v, "burst")
            break
          default:
            throw new Error(`fault spec: unknown option "${key}" in "${text}"`)
        }
      }
      if (rule.probability !== undefined && rule.probability > 1) throw new Error(`fault spec: probability above 1 in "${text}"`)
      return rule
    })

/**
 * Parses a latency that grows with load, "BASE,KNEE,PER_EXTRA", e.g. "100ms,4,50ms": a page of 100 rows takes 100 ms
 * (a request for fewer rows less, down to a fifth of it), and 50 ms more per request in flight beyond 4.
 */
export const parseLatencyKnee = (spec: string): LatencyKneeOptions => {
  const parts = spec.split(",").map((s) => s.trim())
  if (parts.length !== 3) throw new Error(`latency knee: "${spec}" is not BASE,KNEE,PER_EXTRA (e.g. 100ms,4,50ms)`)
  const knee = Number(parts[1])
  if (!Number.isInteger(knee) || knee < 1) throw new Error(`latency knee: the knee must be a whole number of requests from 1, got "${parts[1]}"`)
  try {
    return { baseMs: duration(parts[0]!), knee, perExtraMs: duration(parts[2]!) }
  } catch (e) {
    throw new Error(String((e as Error).message).replace(/^fault spec/, "latency knee"))
  }
}
