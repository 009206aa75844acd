// Switchable, deterministic fault injection: what real hosting in front of the service does
// (rate limiting, 5xx pages, reset connections, slowness) and early token revocation.
import { mulberry32 } from "../http/prng.ts"
import type { Reply } from "../http/reply.ts"
import { apiError } from "./errors.ts"
import { rateLimitExceeded } from "./rate-limit.ts"

export type MarketingFaultKind = "429" | "500" | "502" | "503" | "drop" | "latency" | "revoke"

export interface MarketingFaultRule {
  kind: MarketingFaultKind
  /** Chance (0..1) that a matching request is hit; default 1. Drawn from a seeded generator. */
  probability?: number
  /** Fire at most this many times (default unlimited; `revoke` defaults to 1). */
  times?: number
  /** Only requests whose path starts with this (e.g. "/api/contacts", "/oauth/v2/token"). */
  pathPrefix?: string
  /** Let this many matching requests through before the rule can fire. */
  afterRequests?: number
  /** For `latency`: the delay added before the request is handled. */
  latencyMs?: number
  /** For 429 and 503: a Retry-After header (429 also moves X-RateLimit-Reset). */
  retryAfterSeconds?: number
  /** Body of a 5xx: json (the service's error), html (a proxy page) or empty. Default: 500 json, 502/503 html. */
  body?: "json" | "html" | "empty"
}

export interface FaultDecision {
  latencyMs: number
  /** Revoke every token before handling the request ("tokens revoked early"). */
  revoke: boolean
  /** A rule that replaces the answer: 429, 5xx or a dropped connection. */
  failure: MarketingFaultRule | undefined
}

export class FaultEngine {
  private readonly counters: Array<{ seen: number; fired: number }>
  private readonly random: () => number

  constructor(
    private readonly rules: ReadonlyArray<MarketingFaultRule>,
    seed: number,
  ) {
    this.counters = rules.map(() => ({ seen: 0, fired: 0 }))
    this.random = mulberry32(seed)
  }

  /** Rules are tried in order; latency and revoke add up, the first failure that fires wins. */
  decide(path: string): FaultDecision {
    const decision: FaultDecision = { latencyMs: 0, revoke: false, failure: undefined }
    this.rules.forEach((rule, index) => {
      const counter = this.counters[index]!
      const isFailure = rule.kind !== "latency" && rule.kind !== "revoke"
      if (isFailure && decision.failure) return
      if (rule.pathPrefix !== undefined && !path.startsWith(rule.pathPrefix)) return
      counter.seen++
      if (counter.seen <= (rule.afterRequests ?? 0)) return
      if (counter.fired >= (rule.times ?? (rule.kind === "revoke" ? 1 : Infinity))) return
      // The generator is only consulted for partial probabilities, so p=1 rules do not shift the sequence.
      const p = rule.probability ?? 1
      if (p < 1 && this.random() >= p) return
      counter.fired++
      if (rule.kind === "latency") decision.latencyMs += rule.latencyMs ?? 0
      else if (rule.kind === "revoke") decision.revoke = true
      else decision.failure = rule
    })
    return decision
  }
}

const REASONS: Record<string, string> = { "500": "Internal Server Error", "502": "Bad Gateway", "503": "Service Unavailable" }

/** The answer that replaces the real one for a 429 or 5xx rule. */
export const faultReply = (rule: MarketingFaultRule, rateLimit: number, nowMs: number): Reply => {
  const retry = rule.retryAfterSeconds
  if (rule.kind === "429") {
    const reset = Math.ceil(nowMs / 1000) + (retry ?? 60)
    const error = rateLimitExceeded({ limit: rateLimit, remaining: 0, reset }, retry)
    return { status: 429, body: error.body, headers: error.headers }
  }
  const status = Number(rule.kind)
  const headers = rule.kind === "503" && retry !== undefined ? { "Retry-After": String(retry) } : undefined
  const body = rule.body ?? (rule.kind === "500" ? "json" : "html")
  if (body === "empty") return { status, text: "", ...(headers && { headers }) }
  if (body === "html") {
    const title = `${status} ${REASONS[rule.kind]}`
    return {
      status,
      contentType: "text/html",
      text: `<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>`,
      ...(headers && { headers }),
    }
  }
  const message =
    status === 500
      ? "Looks like I encountered an error (error #500). If I do it again, please report me to the system administrator!"
      : REASONS[rule.kind]!
  return { status, body: apiError(status, message).body, ...(headers && { headers }) }
}

const KINDS = new Set<string>(["429", "500", "502", "503", "drop", "latency", "revoke"])

const duration = (text: string, rule: string): number => {
  const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text)
  if (!match) throw new Error(`fault rule "${rule}": "${text}" is not a duration like 250ms or 2s`)
  return Number(match[1]) * (match[2] === "s" ? 1000 : 1)
}

const count = (text: string, key: string, rule: string): number => {
  if (!/^\d+$/.test(text)) throw new Error(`fault rule "${rule}": ${key} must be a whole number, got "${text}"`)
  return Number(text)
}

const probability = (text: string, rule: string): number => {
  const p = Number(text)
  if (text === "" || !(p >= 0 && p <= 1)) throw new Error(`fault rule "${rule}": probability must be within 0..1, got "${text}"`)
  return p
}

/**
 * The compact fault grammar of the command line:
 *
 *   spec    = rule *("," rule)
 *   rule    = kind [":" value] *(";" option)
 *   kind    = "429" | "500" | "502" | "503" | "drop" | "revoke" | "latency"
 *   value   = probability 0..1 (every kind but latency) | duration "250ms" / "2s" / "250" (latency)
 *   option  = "p=" probability | "times=" n | "after=" n | "path=" prefix | "retry=" seconds
 *           | "body=" ("json" | "html" | "empty")
 *
 * Examples: "429:0.05,drop:0.01,latency:250ms" · "503;times=2;path=/api/contacts;retry=5" ·
 * "revoke;after=10" (revoke all tokens once, on the 11th request) · "latency:2s;p=0.1".
 */
export const parseMarketingFaultSpec = (spec: string): MarketingFaultRule[] =>
  spec
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => {
      const [head = "", ...options] = part.split(";").map((s) => s.trim())
      const [kind = "", value] = head.split(":", 2)
      if (!KINDS.has(kind)) throw new Error(`fault rule "${part}": unknown kind "${kind}" (429, 500, 502, 503, drop, revoke, latency)`)
      const rule: MarketingFaultRule = { kind: kind as MarketingFaultKind }
      if (kind === "latency") {
        if (value === undefined) throw new Error(`fault rule "${part}": latency needs a duration, e.g. latency:250ms`)
        rule.latencyMs = duration(value, part)
      } else if (value !== undefined) {
        rule.probability = probability(value, part)
      }
      for (const option of options) {
        const [key = "", optionValue = ""] = option.split("=", 2)
        switch (key) {
          case "p": rule.probability = probability(optionValue, part); break
          case "times": rule.times = count(optionValue, key, part); break
          case "after": rule.afterRequests = count(optionValue, key, part); break
          case "path": rule.pathPrefix = optionValue; break
          case "retry": rule.retryAfterSeconds = count(optionValue, key, part); break
          case "body":
            if (optionValue !== "json" && optionValue !== "html" && optionValue !== "empty") {
              throw new Error(`fault rule "${part}": body must be json, html or empty`)
            }
            rule.body = optionValue
            break
          default:
            throw new Error(`fault rule "${part}": unknown option "${key}" (p, times, after, path, retry, body)`)
        }
      }
      return rule
    })
