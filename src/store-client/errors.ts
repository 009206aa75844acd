import { Data } from "effect"
import { changeUrl, checkKey, checkUrl, type KeySource, setUrl, urlName } from "./key-source.js"

export type { KeySource } from "./key-source.js"

/** Messages are one paragraph: whatever a server said is folded onto one line. */
export const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()

/** The store answered with a status that retrying cannot fix, or kept failing until retries ran out. */
export class StoreRequestFailed extends Data.TaggedError("StoreRequestFailed")<{
  readonly method: string
  readonly url: string
  readonly status: number
  readonly code: string | undefined
  readonly storeMessage: string | undefined
  readonly attempts: number
  readonly source?: KeySource
}> {
  override get message() {
    const what = this.code ? `${this.status} ${this.code}` : `${this.status}`
    const said = this.storeMessage ? `: ${oneLine(this.storeMessage)}` : ""
    const tries = this.attempts > 1 ? ` after ${this.attempts} attempts` : ""
    const hint = this.code === "rest_no_route" ? `; ${checkUrl(this.source, "the API root, ending in /wp-json/wc/v3")}` : ""
    return `the store answered ${what}${said} to ${this.method} ${this.url}${tries}${hint}`
  }
}

/**
 * The store's own 404 for the thing asked for: the only proof that it is gone. A 404 without the store's JSON
 * error (a proxy's or security plugin's page) or for an unknown route (rest_no_route) says nothing about the
 * thing, and stays an error.
 */
export const isGone = (e: unknown): e is StoreRequestFailed =>
  e instanceof StoreRequestFailed && e.status === 404 && e.code !== undefined && e.code !== "rest_no_route"

/**
 * Why the store refused (see auth-answer.ts for how the answer is read): `rejected` the key or secret (or the
 * signature) is wrong; `no-credentials` the store saw none; `permission` the key was read but its user may not
 * read this route.
 */
export type AuthRefusal = "rejected" | "no-credentials" | "permission"

/** 401/403: the key is wrong, did not reach the store, or lacks permission; retrying would not help. */
export class StoreAuthFailed extends Data.TaggedError("StoreAuthFailed")<{
  readonly url: string
  readonly status: number
  readonly code: string | undefined
  readonly storeMessage: string | undefined
  readonly reason: AuthRefusal
  /** What to change, when the situation (transport, STORE_AUTH) tells. */
  readonly hint: string | undefined
  readonly source?: KeySource
}> {
  override get message() {
    const answer = `${this.status}${this.code ? ` ${this.code}` : ""}${this.storeMessage ? `: ${oneLine(this.storeMessage)}` : ""}`
    const hint = this.hint ? `; ${this.hint}` : ""
    switch (this.reason) {
      case "no-credentials":
        return `the store saw no credentials (the server may drop the Authorization header; see STORE_AUTH): ` +
          `it answered ${answer} on ${this.url}${hint}`
      case "permission":
        return `the consumer key may not read ${this.url} (${answer}): its user lacks the capability ` +
          `(settings, system status, webhooks and reports need manage_woocommerce)${hint}`
      case "rejected":
        return `the store rejected the consumer key (${answer}) on ${this.url}; ${checkKey(this.source)}${hint}`
    }
  }
}

/** No HTTP answer at all (refused, reset, timed out) after every retry. */
export class StoreUnreachable extends Data.TaggedError("StoreUnreachable")<{
  readonly method: string
  readonly url: string
  readonly reason: string
  readonly attempts: number
  readonly source?: KeySource
}> {
  override get message() {
    return `could not reach the store at ${this.method} ${this.url} after ${this.attempts} attempts (${oneLine(this.reason)}); ${checkUrl(this.source)} and the network`
  }
}

/**
 * The TLS handshake failed, or an http:// URL reached a port that speaks TLS: reasons no retry changes (see
 * http-client/tls.ts).
 */
export class StoreTlsFailed extends Data.TaggedError("StoreTlsFailed")<{
  readonly url: string
  /** The system error code, e.g. ERR_SSL_WRONG_VERSION_NUMBER or DEPTH_ZERO_SELF_SIGNED_CERT (ERR_HTTP_TO_HTTPS_PORT: ours). */
  readonly code: string
  readonly problem: "protocol" | "certificate" | "speaks-https"
  /** The API root as shown (credentials masked), for the address to use instead. */
  readonly apiUrl?: string | undefined
  readonly source?: KeySource
}> {
  override get message() {
    switch (this.problem) {
      case "speaks-https": {
        const root = this.apiUrl ?? this.url
        return `the store at ${new URL(root).origin} speaks HTTPS (a plain HTTP request to ${this.url} was closed without ` +
          `an answer, and a TLS handshake there succeeds): use https://, ${setUrl(this.source, root.replace(/^http:/, "https:"))}`
      }
      case "protocol": {
        const plain = this.apiUrl?.startsWith("https:") ? `; if the store serves plain HTTP there, use http://: ${setUrl(this.source, this.apiUrl.replace(/^https:/, "http:"))}` : ""
        return `no TLS session with the store at ${this.url} (${this.code}): the server does not speak HTTPS on that port; ` +
          `${checkUrl(this.source, "an https:// address on a plain-HTTP port, or the wrong port")}${plain}`
      }
      case "certificate":
        return `the store's TLS certificate is not trusted at ${this.url} (${this.code}); check the host in ${urlName(this.source)}, ` +
          `give the store a certificate from a public authority, or trust its authority with NODE_EXTRA_CA_CERTS=/path/to/ca.pem`
    }
  }
}

/** A first answer that is not the API: a web page where JSON was expected (the site, not its API root). */
export class StoreNotApi extends Data.TaggedError("StoreNotApi")<{
  readonly url: string
  readonly status: number
  /** The page's title, when it has one. */
  readonly title: string | undefined
  /** The API root to try instead. */
  readonly suggestion: string
  readonly source?: KeySource
}> {
  override get message() {
    const page = this.title ? `an HTML page ("${oneLine(this.title)}")` : "an HTML page"
    const fix = this.source === undefined ? `set STORE_API_URL to the API root, usually ${this.suggestion}` : `${setUrl(this.source, this.suggestion)} (the usual API root)`
    return `${urlName(this.source)} points at the site, not its API root: GET ${this.url} answered ${this.status} with ${page} ` +
      `instead of JSON; ${fix}`
  }
}

/** A redirect: not followed (credentials must not travel to wherever it points), the address to use named. */
export class StoreRedirected extends Data.TaggedError("StoreRedirected")<{
  readonly url: string
  readonly status: number
  /** The Location header, resolved and with credentials masked; undefined when the answer had none. */
  readonly location: string | undefined
  /** The API root the redirect points to, when it can be told. */
  readonly suggestion: string | undefined
  readonly source?: KeySource
}> {
  override get message() {
    const where = this.location ? ` to ${this.location}` : " without a Location"
    const fix = this.suggestion
      ? setUrl(this.source, this.suggestion)
      : `set ${urlName(this.source)} to the address the API answers on without redirecting${changeUrl(this.source)}`
    return `the store redirects (${this.status})${where} from GET ${this.url}; shopsync does not follow redirects: ${fix}`
  }
}

/** A document the store sent does not have the shape the pipeline relies on. */
export class StoreDocumentInvalid extends Data.TaggedError("StoreDocumentInvalid")<{
  readonly url: string
  readonly detail: string
}> {
  override get message() {
    return `the store sent a document shopsync cannot read from ${this.url}: ${this.detail}`
  }
}

export type StoreError =
  | StoreRequestFailed
  | StoreAuthFailed
  | StoreUnreachable
  | StoreTlsFailed
  | StoreNotApi
  | StoreRedirected
  | StoreDocumentInvalid
