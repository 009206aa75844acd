import { Data } from "effect"

/** The store answered with a status that retrying cannot fix, or kept failing until retries ran out. */
export class StoreRequestFailed extends Data.TaggedError("StoreRequestFailed")<{
  readonly method: string
  readonly url: string
  readonly status: number
  readonly code: string | undefined
  readonly storeMessage: string | undefined
  readonly attempts: number
}> {
  override get message() {
    const what = this.code ? `${this.status} ${this.code}` : `${this.status}`
    const said = this.storeMessage ? `: ${this.storeMessage}` : ""
    const tries = this.attempts > 1 ? ` after ${this.attempts} attempts` : ""
    const hint = this.code === "rest_no_route" ? "; check STORE_API_URL (the API root, ending in /wp-json/wc/v3)" : ""
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

/** 401/403: credentials are wrong or lack permission; retrying would not help. */
export class StoreAuthFailed extends Data.TaggedError("StoreAuthFailed")<{
  readonly url: string
  readonly status: number
  readonly code: string | undefined
  readonly storeMessage: string | undefined
}> {
  override get message() {
    return `the store rejected the consumer key (${this.status}${this.code ? ` ${this.code}` : ""}` +
      `${this.storeMessage ? `: ${this.storeMessage}` : ""}) on ${this.url}; check STORE_CONSUMER_KEY and STORE_CONSUMER_SECRET`
  }
}

/** No HTTP answer at all (refused, reset, timed out) after every retry. */
export class StoreUnreachable extends Data.TaggedError("StoreUnreachable")<{
  readonly method: string
  readonly url: string
  readonly reason: string
  readonly attempts: number
}> {
  override get message() {
    return `could not reach the store at ${this.method} ${this.url} after ${this.attempts} attempts (${this.reason}); check STORE_API_URL and the network`
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

export type StoreError = StoreRequestFailed | StoreAuthFailed | StoreUnreachable | StoreDocumentInvalid
