import * as HttpRouter from "@effect/platform/HttpRouter"
import type { Option, Redacted } from "effect"
import { healthz } from "./healthz.js"
import { webhookRoute } from "./webhook-route.js"

/** The routes of `shopsync serve`. */
export const serveRouter = (secret: Option.Option<Redacted.Redacted<string>>) =>
  HttpRouter.empty.pipe(
    HttpRouter.post("/webhooks/store", webhookRoute(secret)),
    HttpRouter.post("/webhooks/store/:storeId", webhookRoute(secret)),
    HttpRouter.get("/healthz", healthz)
    // MOUNT HERE (issue 12, "page" branch): HttpRouter.get("/metrics", metricsRoute) and HttpRouter.get("/", statusPageRoute(webhooks)),
    // with `webhooks` read from Inbox.counts (src/webhooks/inbox.ts) and the metrics exporter layer provided in serve-command.ts.
  )
