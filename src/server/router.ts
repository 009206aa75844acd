import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, type Option, type Redacted } from "effect"
import type { Inbox } from "../webhooks/inbox.js"
import { healthz } from "./healthz.js"
import { metricsRoute } from "./metrics.js"
import { statusPageRoute } from "./status-page.js"
import type { WebhookSummary } from "./webhook-summary.js"
import { webhookRoute } from "./webhook-route.js"

/** The inbox as the page and /metrics show it: skipped deliveries were applied (they found newer data), failed ones rejected. */
export const webhookSummary = (inbox: Inbox["Type"]): Effect.Effect<WebhookSummary> =>
  inbox.counts.pipe(
    Effect.map((c) => ({
      received: c.received,
      applied: c.applied + c.skipped,
      rejected: c.failed,
      pending: c.pending,
      lastReceivedAt: c.last_received_at
    })),
    // A warehouse that does not answer is reported by the page (503) and by shopsync_warehouse_up.
    Effect.orDie
  )

/** The routes of `shopsync serve`: webhook intake, health, metrics and the status page. */
export const serveRouter = (secret: Option.Option<Redacted.Redacted<string>>, inbox: Inbox["Type"]) =>
  HttpRouter.empty.pipe(
    HttpRouter.post("/webhooks/store", webhookRoute(secret)),
    HttpRouter.post("/webhooks/store/:storeId", webhookRoute(secret)),
    HttpRouter.get("/healthz", healthz),
    HttpRouter.concat(metricsRoute(webhookSummary(inbox))),
    HttpRouter.concat(statusPageRoute(webhookSummary(inbox)))
  )
