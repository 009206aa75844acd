// The REST API's key authentication, as WooCommerce does it: HTTP Basic (or consumer_key/consumer_secret query
// parameters) when the request arrived over HTTPS, else OAuth 1.0a one-legged signatures. The simulator is plain
// HTTP, so "over HTTPS" means behind a proxy that says so: X-Forwarded-Proto: https. By default it is lenient and
// reads Basic and query keys over any transport (the seeds' behaviour); the options make it as strict as a real
// store, or as broken as a host that drops the Authorization header.
import type { IncomingMessage } from "node:http"
import { readBasicAuth, sameSecret } from "../http/basic-auth.ts"
import { hasOAuthParams, NonceStore, OAUTH_REQUIRED, signatureMatches, SIGNATURE_METHODS } from "../http/oauth1.ts"
import type { SimClock } from "./clock.ts"
import { wcError } from "./rest/errors.ts"

export interface StoreAuthOptions {
  /**
   * WooCommerce's transport rule: HTTP Basic and query-string keys are read only over HTTPS (X-Forwarded-Proto:
   * https); over plain HTTP only OAuth 1.0a signatures. Default false: read over any transport.
   */
  httpsOnlyBasic?: boolean
  /** Drop the Authorization header before authentication, like a host running PHP as CGI or FastCGI. Default false. */
  dropAuthorization?: boolean
  /** OAuth timestamps older than this (by the simulator's clock) are refused; default 900, WooCommerce's 15 minutes. */
  oauthWindowSeconds?: number
}

const authError = (message: string) => wcError(401, "woocommerce_rest_authentication_error", message)

/** What WooCommerce answers a request it read no credentials from, or whose key's user lacks the capability. */
export const cannotView = () => wcError(401, "woocommerce_rest_cannot_view", "Sorry, you cannot list resources.")

const isForwardedHttps = (req: IncomingMessage): boolean => {
  const header = req.headers["x-forwarded-proto"]
  const first = (Array.isArray(header) ? header[0] : header)?.split(",")[0]?.trim().toLowerCase()
  return first === "https"
}

export class StoreAuthenticator {
  private readonly nonces: NonceStore
  private readonly windowSeconds: number

  constructor(
    private readonly key: string,
    private readonly secret: string,
    private readonly clock: SimClock,
    private readonly options: StoreAuthOptions = {},
  ) {
    this.windowSeconds = options.oauthWindowSeconds ?? 900
    this.nonces = new NonceStore(this.windowSeconds)
  }

  /** Throws the store's 401 unless the request carries the key in a way the store reads. */
  check(req: IncomingMessage, url: URL): void {
    const https = isForwardedHttps(req)
    if (!this.options.httpsOnlyBasic || https) {
      const basic = readBasicAuth(this.options.dropAuthorization ? undefined : req.headers.authorization)
      const user = basic?.user ?? url.searchParams.get("consumer_key") ?? undefined
      if (user !== undefined && user !== "") return this.checkKey(user, basic?.password ?? url.searchParams.get("consumer_secret") ?? "")
    }
    if (hasOAuthParams(url.searchParams)) return this.checkSignature(req, url, https)
    // The seeds' answer; a real store reads no user and fails the route's permission check instead.
    if (this.options.httpsOnlyBasic || this.options.dropAuthorization) throw cannotView()
    throw authError("Consumer key is missing.")
  }

  private checkKey(user: string, password: string): void {
    if (!sameSecret(user, this.key)) throw authError("Consumer key is invalid.")
    if (!sameSecret(password, this.secret)) throw authError("Consumer secret is invalid.")
  }

  private checkSignature(req: IncomingMessage, url: URL, https: boolean): void {
    const query = url.searchParams
    const missing = OAUTH_REQUIRED.filter((p) => !query.get(p))
    if (missing.length > 0) {
      const message = `Missing OAuth parameter${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`
      throw wcError(401, "woocommerce_rest_authentication_missing_parameter", message)
    }
    if (!sameSecret(query.get("oauth_consumer_key")!, this.key)) throw authError("Consumer key is invalid.")
    if (SIGNATURE_METHODS[query.get("oauth_signature_method")!] === undefined) throw authError("Invalid signature - signature method is invalid.")
    const baseUrl = `${https ? "https" : "http"}://${req.headers.host ?? ""}${url.pathname}`
    if (!signatureMatches(req.method ?? "GET", baseUrl, query, this.secret)) {
      throw authError("Invalid signature - provided signature does not match.")
    }
    const timestamp = Number(query.get("oauth_timestamp"))
    const now = Math.floor(this.clock.now() / 1000)
    if (!Number.isInteger(timestamp) || timestamp < now - this.windowSeconds) throw authError("Invalid timestamp.")
    if (!this.nonces.use(this.key, query.get("oauth_nonce")!, timestamp, now)) {
      throw authError("Invalid nonce - nonce has already been used.")
    }
  }
}
