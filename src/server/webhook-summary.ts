import { Schema } from "effect"

/**
 * What the webhook inbox holds, as the status page and /metrics show it: deliveries received, applied, rejected,
 * waiting to be applied (the inbox depth), the bytes of bodies it holds (what its bound counts), and when the last
 * one arrived (ISO 8601, null before the first).
 * The inbox's owner computes it; the page and the metrics take it as a parameter.
 */
export const WebhookSummary = Schema.Struct({
  received: Schema.Number,
  applied: Schema.Number,
  rejected: Schema.Number,
  pending: Schema.Number,
  bytes: Schema.Number,
  lastReceivedAt: Schema.NullOr(Schema.String)
})
export type WebhookSummary = typeof WebhookSummary.Type
