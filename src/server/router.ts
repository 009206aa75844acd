import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, type Option, type Redacted } from "effect"
import { storeIdConfig } from "../config/settings.js"
import type { Inbox } from "../webhooks/inbox.js"
import type { WebhookRejections } from "../webhooks/rejections.js"
import { healthz, withoutReasons } from "./healthz.js"
import { metricsRoute } from "./metrics.js"
import { statusPageRoute } from "./status-page.js"
import type { WebhookSummary } from "./webhook-summary.js"
import { webhookRoute } from "./webhook-route.js"

/**
 * The inbox as the page and /metrics show it (skipped deliveries were applied: they found newer data), with what
 * this process's listener rejected for the store.
 */
export const webhookSummary = (inbox: Inbox, rejections: WebhookRejections["Type"], storeId: string): Effect.Effect<WebhookSummary> =>
  Effect.zipWith(inbox.counts(storeId), rejections.counts(storeId), (c, rejected) => ({
    received: c.received,
    applied: c.applied + c.skipped,
    failed: c.failed,
    pending: c.pending,
    bytes: c.bytes,
    lastReceivedAt: c.last_received_at,
    rejected
  })).pipe(
    // A warehouse that does not answer is reported by the page (503) and by shopsync_warehouse_up.
    Effect.orDie
  )

/** The configured store's (STORE_ID) inbox summary. */
const servedSummary = (inbox: Inbox, rejections: WebhookRejections["Type"]) =>
  Effect.flatMap(Effect.orDie(storeIdConfig), (storeId) => webhookSummary(inbox, rejections, storeId))

/** The routes of `shopsync serve`'s webhook listener: webhook intake and a /healthz without reasons. */
export const serveWebhookRouter = (secret: Option.Option<Redacted.Redacted<string>>, inboxMaxBytes: number) =>
  HttpRouter.empty.pipe(
    HttpRouter.post("/webhooks/store", webhookRoute(secret, inboxMaxBytes)),
    HttpRouter.post("/webhooks/store/:storeId", webhookRoute(secret, inboxMaxBytes)),
    HttpRouter.get("/healthz", withoutReasons(healthz))
  )

/** The routes of `shopsync serve`'s admin listener: /healthz with its reasons, metrics and the status page. */
export const serveAdminRouter = (inbox: Inbox, rejections: WebhookRejections["Type"]) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/healthz", healthz),
    HttpRouter.concat(metricsRoute(servedSummary(inbox, rejections))),
    HttpRouter.concat(statusPageRoute(servedSummary(inbox, rejections)))
  )
