import { Metric } from "effect"

/**
 * Webhook deliveries by outcome (tag `outcome`): accepted into the inbox, rejected (signature, size, shape), applied.
 * A worker, which takes several stores' deliveries, tags them with `store` too; `serve` has one store and does not.
 */
export const webhookDeliveries = Metric.counter("shopsync_webhook_deliveries_total", {
  description: "Webhook deliveries received by shopsync serve or worker, by outcome",
  incremental: true
})

/** Counts one delivery with its outcome (and its store, when given). */
export const countDelivery = (outcome: "accepted" | "rejected" | "applied", storeId?: string) => {
  const counter = Metric.tagged(webhookDeliveries, "outcome", outcome)
  return Metric.increment(storeId === undefined ? counter : Metric.tagged(counter, "store", storeId))
}
