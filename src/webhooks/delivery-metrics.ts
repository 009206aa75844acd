import { type Effect, Metric } from "effect"

/**
 * Webhook deliveries by outcome (tag `outcome`): accepted into the inbox, rejected (signature, size, shape), applied,
 * full (refused with 503: the store's inbox holds SHOPSYNC_INBOX_MAX_MB).
 * A worker, which takes several stores' deliveries, tags them with `store` too; `serve` has one store and does not.
 */
export const webhookDeliveries = Metric.counter("shopsync_webhook_deliveries_total", {
  description: "Webhook deliveries received by shopsync serve or worker, by outcome",
  incremental: true
})

export type DeliveryOutcome = "accepted" | "rejected" | "applied" | "full"

/** Counts one delivery of a store with its outcome: `serve`'s way (no store tag) or a worker's (countStoreDelivery). */
export type DeliveryCounter = (outcome: DeliveryOutcome, storeId: string) => Effect.Effect<void>

const byOutcome = (outcome: DeliveryOutcome) => Metric.tagged(webhookDeliveries, "outcome", outcome)

export const countDelivery: DeliveryCounter = (outcome) => Metric.increment(byOutcome(outcome))

export const countStoreDelivery: DeliveryCounter = (outcome, storeId) => Metric.increment(Metric.tagged(byOutcome(outcome), "store", storeId))
