// The storefront (Store API) rate limiter of seed part 2 §8, off by default. Requests are grouped by logged-in user
// id, else by client IP (from the forwarding headers when proxy support is on), or by an extension's fingerprint,
// which replaces either. Only plain POSTs count (a POST carrying X-HTTP-Method-Override for another method does
// not). Each group has a window of `seconds` holding `limit` requests; the answers carry RateLimit-Limit,
// -Remaining and -Reset, and once the window is used up RateLimit-Retry-After too, with WooCommerce's 400
// rate_limit_exceeded. The checkout feature limits POST /checkout to 3 requests per 60 seconds, counted on its own.
import { createHash } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { isIP } from "node:net"
import { HttpError } from "../../http/errors.ts"

export interface StorefrontRateLimitOptions {
  /** Default false: the limiter is optional. */
  enabled?: boolean
  /** Read the client address from X-Real-IP, Client-IP, X-Forwarded-For, Forwarded / X-Forwarded. Default false. */
  proxySupport?: boolean
  /** Requests per window; default 25. */
  limit?: number
  /** Window length; default 10. */
  seconds?: number
  /** The woocommerce_store_api_rate_limit_id filter: a grouping key that replaces the user id or IP. */
  fingerprint?: (req: IncomingMessage) => string | undefined
  /** The woocommerce_store_api_rate_limit_exceeded hook: the offending IP and the action id. */
  onExceeded?: (ip: string, actionId: string) => void
}

const CHECKOUT_LIMIT = { limit: 3, seconds: 60 }

interface Window {
  /** Unix seconds when the window ends. */
  reset: number
  remaining: number
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}

/** FILTER_VALIDATE_IP with FILTER_FLAG_NO_RES_RANGE: reserved ranges (loopback included) count as unknown. */
const validIp = (ip: string): string => {
  const v = ip.trim().replace(/^::ffff:(?=\d+\.)/, "")
  const reserved = /^(0|127)\./.test(v) || /^169\.254\./.test(v) || /^2(4\d|5[0-5])\./.test(v) || v === "::1" || v === "::"
  return isIP(v) !== 0 && !reserved ? v : "0.0.0.0"
}

const clientIp = (req: IncomingMessage, proxySupport: boolean): string => {
  if (!proxySupport) return validIp(req.socket.remoteAddress ?? "")
  const real = header(req, "x-real-ip") ?? header(req, "client-ip")
  if (real !== undefined) return validIp(real)
  const forwardedFor = header(req, "x-forwarded-for")
  if (forwardedFor !== undefined) return validIp(forwardedFor.split(",")[0]!)
  const forwarded = header(req, "forwarded") ?? header(req, "x-forwarded")
  const match = forwarded === undefined ? null : /for=([^;,]*)/i.exec(forwarded)
  // A bracketed IPv6 address (with a port) is quoted: for="[2001:db8::1]:4711".
  if (match !== null) return validIp(match[1]!.includes('"[') ? (/\[([^\]]*)\]/.exec(match[1]!)?.[1] ?? "") : match[1]!)
  return "0.0.0.0"
}

/** Whether the request is one the limiter counts: a POST, unless overridden to another method. */
export const countsAsPost = (req: IncomingMessage): boolean => {
  if (req.method !== "POST") return false
  const override = (header(req, "x-http-method-override") ?? "").trim().toUpperCase()
  return override === "" || override === "POST"
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>()

  constructor(
    private readonly options: StorefrontRateLimitOptions,
    private readonly nowSeconds: () => number,
  ) {}

  /**
   * Counts the request against its group; returns the RateLimit-* headers, or throws the rejection.
   * `checkout` applies the checkout feature's 3-per-60-seconds limit instead of the configured one.
   */
  hit(req: IncomingMessage, userId: number, checkout: boolean): Record<string, string> {
    const { limit, seconds } = checkout ? CHECKOUT_LIMIT : { limit: this.options.limit ?? 25, seconds: this.options.seconds ?? 10 }
    const ip = clientIp(req, this.options.proxySupport ?? false)
    const custom = this.options.fingerprint?.(req)
    // sanitize_key, as WooCommerce applies to the id.
    const group = (custom ?? (userId > 0 ? String(userId) : createHash("md5").update(ip).digest("hex"))).toLowerCase().replace(/[^a-z0-9_-]/g, "")
    const actionId = `store_api_request_${checkout ? "checkout_" : ""}${group}`
    const now = this.nowSeconds()
    const current = this.windows.get(actionId)
    if (current !== undefined && current.remaining === 0 && now <= current.reset) {
      const retry = current.reset - now
      this.options.onExceeded?.(ip, actionId)
      throw new HttpError(
        400,
        { code: "rate_limit_exceeded", message: `Too many requests. Please wait ${retry} seconds before trying again.`, data: { status: 400 } },
        { "RateLimit-Limit": String(limit), "RateLimit-Remaining": "0", "RateLimit-Reset": String(now + retry), "RateLimit-Retry-After": String(retry) },
      )
    }
    const window = current === undefined || current.reset < now ? { reset: now + seconds, remaining: limit - 1 } : { reset: current.reset, remaining: Math.max(current.remaining - 1, 0) }
    this.windows.set(actionId, window)
    return { "RateLimit-Limit": String(limit), "RateLimit-Remaining": String(window.remaining), "RateLimit-Reset": String(window.reset) }
  }
}
