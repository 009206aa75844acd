import { Schema } from "effect"
import { RejectedCount } from "../webhooks/rejections.js"

/**
 * The store's webhook deliveries as the status page and /metrics show them. From the inbox: received, applied,
 * failed (stored, but they could not be applied), waiting to be applied (the inbox depth), the bytes of bodies it
 * holds (what its bound counts), when the last one arrived (ISO 8601, null before the first). From this process:
 * the deliveries its listener rejected since it started, per cause (never stored, so not in the inbox).
 * The inbox's owner computes it; the page and the metrics take it as a parameter.
 */
export const WebhookSummary = Schema.Struct({
  received: Schema.Number,
  applied: Schema.Number,
  failed: Schema.Number,
  pending: Schema.Number,
  bytes: Schema.Number,
  lastReceivedAt: Schema.NullOr(Schema.String),
  rejected: Schema.Array(RejectedCount)
})
export type WebhookSummary = typeof WebhookSummary.Type
