// Fault injection: the failures of the hosting in front of a real service (rate limits, gateway errors,
// reset connections, slowness), decided per request, deterministically for a given seed and request order.
import { mulberry32 } from "./prng.ts"
import type { Reply } from "./reply.ts"

/** html404: the page a proxy or security plugin answers in the store's place, without the store's JSON error. */
export type FaultKind = "429" | "500" | "502" | "503" | "html5xx" | "html404" | "empty5xx" | "drop" | "latency"

export interface FaultRule {
  kind: FaultKind
  /** Chance that an eligible request is hit; default 1. */
  probability?: number
  /** Fire at most this many times. */
  times?: number
  /** Only requests whose path (after the API root) starts with this, e.g. "/orders". */
  pathPrefix?: string
  /** Only once this many matching requests were seen. */
  afterRequests?: number
  /** Retry-After for 429 (default 1) and, when given, for 5xx answers. */
  retryAfterSeconds?: number
  /** Delay of a latency fault; default 250. */
  latencyMs?: number
  /** Transient faults: the same request (method and URL) is hit at most this many times in a row, so a client
   * retrying more often always gets through. Unset: every try is drawn independently. */
  maxInARow?: number
  seed?: number
}

export type FaultAction = { type: "drop" } | { type: "reply"; reply: Reply }

export interface FaultDecision {
  /** Sum of the latency faults that fired. */
  delayMs: number
  /** The first non-latency fault that fired, if any: it replaces the real answer. */
  action: FaultAction | undefined
}

export interface FaultResponder {
  /** The service's own JSON error body for a status (the hosting passes 429/5xx from the app through). */
  errorBody(status: number): unknown
  nowMs(): number
}

interface RuleState {
  rule: FaultRule
  random: () => number
  matched: number
  fired: number
  /** Faults in a row per request key (maxInARow rules only); removed when the request gets through. */
  streaks: Map<string, number>
}

const HTML_404 =
  "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
const HTML_502 =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

export class FaultInjector {
  private states: RuleState[] = []

  constructor(
    rules: ReadonlyArray<FaultRule>,
    private readonly responder: FaultResponder,
  ) {
    this.setRules(rules)
  }

  /** Replaces the rules; counters and random streams restart. */
  setRules(rules: ReadonlyArray<FaultRule>): void {
    this.states = rules.map((rule, i) => ({
      rule,
      random: mulberry32(rule.seed ?? 0x5eed + i * 7919),
      matched: 0,
      fired: 0,
      streaks: new Map(),
    }))
  }

  /**
   * `path` is the request path below the API root, or undefined outside it (then only rules without pathPrefix
   * apply); `requestKey` identifies a request across retries (method and URL) for `maxInARow`.
   */
  decide(path: string | undefined, requestKey = path ?? ""): FaultDecision {
    let delayMs = 0
    let action: FaultAction | undefined
    for (const s of this.states) {
      const { rule } = s
      if (rule.pathPrefix !== undefined && (path === undefined || !path.startsWith(rule.pathPrefix))) continue
      const seenBefore = s.matched++
      if (action !== undefined && rule.kind !== "latency") continue
      if (seenBefore < (rule.afterRequests ?? 0)) continue
      if (rule.times !== undefined && s.fired >= rule.times) continue
      const p = rule.probability ?? 1
      const streak = s.streaks.get(requestKey) ?? 0
      if ((p < 1 && s.random() >= p) || (rule.maxInARow !== undefined && streak >= rule.maxInARow)) {
        s.streaks.delete(requestKey)
        continue
      }
      if (rule.maxInARow !== undefined) s.streaks.set(requestKey, streak + 1)
      s.fired++
      if (rule.kind === "latency") delayMs += rule.latencyMs ?? 250
      else action = this.actionFor(rule)
    }
    return { delayMs, action }
  }

  private actionFor(rule: FaultRule): FaultAction {
    const retry = rule.retryAfterSeconds
    const retryHeader: Record<string, string> = retry === undefined ? {} : { "Retry-After": String(retry) }
    switch (rule.kind) {
      case "drop":
        return { type: "drop" }
      case "429": {
        const wait = retry ?? 1
        const reset = Math.floor(this.responder.nowMs() / 1000) + wait
        const headers = {
          "Retry-After": String(wait),
          "RateLimit-Limit": "25",
          "RateLimit-Remaining": "0",
          "RateLimit-Reset": String(reset),
        }
        return { type: "reply", reply: { status: 429, body: this.responder.errorBody(429), headers } }
      }
      case "html5xx":
        return { type: "reply", reply: { status: 502, text: HTML_502, contentType: "text/html", headers: retryHeader } }
      case "html404":
        return { type: "reply", reply: { status: 404, text: HTML_404, contentType: "text/html", headers: {} } }
      case "empty5xx":
        return { type: "reply", reply: { status: 503, text: "", headers: retryHeader } }
      case "500":
      case "502":
      case "503": {
        const status = Number(rule.kind)
        return { type: "reply", reply: { status, body: this.responder.errorBody(status), headers: retryHeader } }
      }
      case "latency":
        throw new Error("latency is not a terminal fault")
    }
  }
}
