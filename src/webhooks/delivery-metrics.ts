import { Metric } from "effect"

/** Webhook deliveries by outcome (tag `outcome`): accepted into the inbox, rejected (signature, size, shape), applied. */
export const webhookDeliveries = Metric.counter("shopsync_webhook_deliveries_total", {
  description: "Webhook deliveries received by shopsync serve, by outcome",
  incremental: true
})

/** Counts one delivery with its outcome. */
export const countDelivery = (outcome: "accepted" | "rejected" | "applied") =>
  Metric.increment(Metric.tagged(webhookDeliveries, "outcome", outcome))
