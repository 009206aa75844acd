import { Data } from "effect"
import { tlsProblem } from "../http-client/tls.js"

// Messages name the method and URL (never a query string: shopsync puts no token there) and what the
// service said; tokens and client secrets never appear.

/** The token endpoint refused the client credentials, or the API refused a freshly issued token. */
export class MarketingAuthFailed extends Data.TaggedError("MarketingAuthFailed")<{
  readonly url: string
  readonly status: number
  readonly serviceMessage: string | undefined
  /** "token": the client-credentials grant failed; "api": a fresh token was refused too. */
  readonly stage: "token" | "api"
}> {
  override get message() {
    const said = `${this.status}${this.serviceMessage ? `: ${this.serviceMessage}` : ""}`
    return this.stage === "token"
      ? `the marketing service refused the client credentials (${said}) at ${this.url}; check MARKETING_CLIENT_ID and MARKETING_CLIENT_SECRET`
      : `the marketing service refused a freshly issued access token (${said}) on ${this.url}; ` +
        "check that the API credential is still enabled and allowed to use this endpoint"
  }
}

/** The service answered with a status retrying cannot fix, or kept answering 429/5xx until retries ran out. */
export class MarketingRequestFailed extends Data.TaggedError("MarketingRequestFailed")<{
  readonly method: string
  readonly url: string
  readonly status: number
  readonly serviceMessage: string | undefined
  readonly attempts: number
  /** A 429/5xx that outlasted the retries: the next run may well succeed. */
  readonly transient: boolean
}> {
  override get message() {
    const said = this.serviceMessage ? `: ${this.serviceMessage}` : ""
    const tries = this.attempts > 1 ? ` after ${this.attempts} attempts` : ""
    const hint = this.status === 403
      ? "; is the API enabled in the service's configuration?"
      : this.status === 404 && !this.serviceMessage?.includes("Item was not found")
      ? "; check MARKETING_BASE_URL (the service's root, without /api)"
      : ""
    return `the marketing service answered ${this.status}${said} to ${this.method} ${this.url}${tries}${hint}`
  }
}

/** No HTTP answer at all (refused, reset, timed out) after every retry. */
export class MarketingUnreachable extends Data.TaggedError("MarketingUnreachable")<{
  readonly method: string
  readonly url: string
  readonly reason: string
  readonly attempts: number
}> {
  override get message() {
    switch (tlsProblem(this.reason)) {
      case "speaks-https":
        return `the marketing service at ${new URL(this.url).origin} speaks HTTPS (a plain HTTP request to ${this.method} ${this.url} ` +
          `was closed without an answer, and a TLS handshake there succeeds): use https:// in MARKETING_BASE_URL`
      case "protocol":
        return `no TLS session with the marketing service at ${this.method} ${this.url} (${this.reason}): the server does not ` +
          "speak HTTPS on that port; check MARKETING_BASE_URL (an https:// address on a plain-HTTP port, or the wrong port)"
      case "certificate":
        return `the marketing service's TLS certificate is not trusted at ${this.url} (${this.reason}); check the host in ` +
          "MARKETING_BASE_URL, or trust its authority with NODE_EXTRA_CA_CERTS=/path/to/ca.pem"
      default:
        return `could not reach the marketing service at ${this.method} ${this.url} after ${this.attempts} attempt(s) (${this.reason}); ` +
          "check MARKETING_BASE_URL and the network"
    }
  }
}

/** A 2xx answer without the shape shopsync relies on. */
export class MarketingResponseInvalid extends Data.TaggedError("MarketingResponseInvalid")<{
  readonly url: string
  readonly detail: string
}> {
  override get message() {
    return `the marketing service sent an answer shopsync cannot read from ${this.url}: ${this.detail}`
  }
}

/** A webhook or field request the service cannot satisfy as asked (unknown trigger, alias taken…). */
export class MarketingSetupInvalid extends Data.TaggedError("MarketingSetupInvalid")<{
  readonly detail: string
}> {
  override get message() {
    return this.detail
  }
}

export type MarketingError =
  | MarketingAuthFailed
  | MarketingRequestFailed
  | MarketingUnreachable
  | MarketingResponseInvalid
  | MarketingSetupInvalid

/** Worth another try later: the service was down, overloaded or rate-limiting, not wrong. */
export const isTransient = (e: MarketingError): boolean =>
  e._tag === "MarketingUnreachable" || (e._tag === "MarketingRequestFailed" && e.transient)
