// OAuth 1.0a one-legged signatures (RFC 5849) checked as WooCommerce checks them: the base string is the method,
// the URL without its query and the sorted, percent-encoded parameters (oauth_signature left out), signed with
// HMAC-SHA1 or HMAC-SHA256 keyed with `consumer_secret&`. Written out here rather than borrowed from a client
// library, so the simulator is an independent check of whatever a client signs with.
import { createHmac } from "node:crypto"
import { sameSecret } from "./basic-auth.ts"

export const OAUTH_REQUIRED = ["oauth_consumer_key", "oauth_timestamp", "oauth_nonce", "oauth_signature", "oauth_signature_method"] as const

export const SIGNATURE_METHODS: Readonly<Record<string, "sha1" | "sha256">> = { "HMAC-SHA1": "sha1", "HMAC-SHA256": "sha256" }

/** RFC 3986 percent-encoding: unreserved characters stay, everything else is %XX (upper case). */
export const rfc3986 = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/** Whether the query carries any OAuth parameter (then it is an OAuth request, complete or not). */
export const hasOAuthParams = (query: URLSearchParams): boolean => [...query.keys()].some((k) => k.startsWith("oauth_"))

export const baseString = (method: string, baseUrl: string, query: URLSearchParams): string => {
  const pairs = [...query]
    .filter(([k]) => k !== "oauth_signature")
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([ka, va], [kb, vb]) => (ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0))
  return `${method.toUpperCase()}&${rfc3986(baseUrl)}&${rfc3986(pairs.map(([k, v]) => `${k}=${v}`).join("&"))}`
}

/** Whether `query`'s oauth_signature signs the request with `secret`; the method must be a known HMAC. */
export const signatureMatches = (method: string, baseUrl: string, query: URLSearchParams, secret: string): boolean => {
  const hash = SIGNATURE_METHODS[query.get("oauth_signature_method") ?? ""]
  if (hash === undefined) return false
  const expected = createHmac(hash, `${rfc3986(secret)}&`).update(baseString(method, baseUrl, query)).digest("base64")
  return sameSecret(query.get("oauth_signature") ?? "", expected)
}

/** Nonces seen within the timestamp window, per consumer key: a replayed request is refused. */
export class NonceStore {
  private readonly seen = new Map<string, number>()

  constructor(private readonly windowSeconds: number) {}

  /** False when the nonce was used before; otherwise remembers it (and forgets the ones too old to matter). */
  use(key: string, nonce: string, timestamp: number, nowSeconds: number): boolean {
    for (const [k, t] of this.seen) if (t < nowSeconds - this.windowSeconds) this.seen.delete(k)
    const id = `${key}\u0000${nonce}`
    if (this.seen.has(id)) return false
    this.seen.set(id, timestamp)
    return true
  }
}
