import { Schema } from "effect"
import { maskEmails } from "../warehouse/personal-data.js"

/**
 * The JSON an alert receiver gets (docs/operating.md, "Alerts"): one object per event. `text` is the one-line
 * summary chat tools show (Slack's incoming webhooks require it); the other fields are for a program.
 */
export const AlertPayload = Schema.Struct({
  event: Schema.Literal("run_failed", "stale", "recovered"),
  store: Schema.String,
  /** run_failed: the job that failed. */
  command: Schema.optional(Schema.Literal("sync", "backfill")),
  /** stale and recovered: the stream whose freshness is watched (`orders`, the sales data). */
  stream: Schema.optional(Schema.String),
  /** run_failed: the run's id in sync.runs when it went on without some streams; null when it failed as a whole. */
  run: Schema.optional(Schema.NullOr(Schema.Number)),
  /** run_failed: the streams that failed, when the run itself went on. */
  failed_streams: Schema.optional(Schema.Array(Schema.String)),
  /** run_failed: why, scrubbed of credentials and e-mail addresses. */
  error: Schema.optional(Schema.String),
  /** stale and recovered: the stream's last successful run, ISO 8601 UTC; null when it never succeeded. */
  last_success_at: Schema.optional(Schema.NullOr(Schema.String)),
  /** ISO 8601 UTC: when the event was seen. */
  at: Schema.String,
  /** The machine that saw it (os.hostname()). */
  host: Schema.String,
  text: Schema.String
})
export type AlertPayload = typeof AlertPayload.Type

/** An alert's text is at most this long: enough for a store's message, short of a document pasted into an error. */
const MAX_TEXT = 1000

/** URL query and form parameters that carry credentials (OAuth 1.0a's included), whatever the case. */
const SECRET_PARAMS =
  /\b(consumer_key|consumer_secret|oauth_[a-z_]+|client_secret|client_id|access_token|refresh_token|id_token|token|api_?key|key|secret|password|passwd|pwd|signature|sig|auth)=[^&\s"'<>]*/gi

/**
 * `text` safe to send to a third party: the given secrets' values, URLs' user:password, credential parameters,
 * Authorization values and WooCommerce keys (`ck_…`, `cs_…`) replaced with `***`, e-mail addresses masked
 * (`a***@example.org`), one line, at most MAX_TEXT characters. Errors never carry a secret on purpose; this is for
 * what a store, a proxy or a driver echoes back.
 */
export const scrub = (text: string, secrets: ReadonlyArray<string> = []): string => {
  let out = text
  // Longest first, so a secret containing another is replaced whole.
  for (const s of [...secrets].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length)) out = out.split(s).join("***")
  out = maskEmails(out
    .replace(SECRET_PARAMS, "$1=***")
    .replace(/\b(Basic|Bearer)\s+[A-Za-z0-9._~+/=-]+/g, "$1 ***")
    .replace(/\b(ck|cs)_[A-Za-z0-9]{8,}/g, "$1_***"))
    // After the e-mail mask, which would leave a URL's password's first character.
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, "$1***@")
    .replace(/\s+/g, " ").trim()
  return out.length > MAX_TEXT ? `${out.slice(0, MAX_TEXT - 1)}…` : out
}
