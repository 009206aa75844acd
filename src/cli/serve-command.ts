import * as HttpServer from "@effect/platform/HttpServer"
import { Duration, Effect, Layer, Option, type Redacted, Ref } from "effect"
import { adminSettingsConfig, type AdminSettings, inboxMaxBytesConfig, serveSettingsConfig, storeSettingsConfig } from "../config/settings.js"
import { StoreJobs } from "../jobs/store-jobs.js"
import { marketingSettingsOption } from "../config/marketing.js"
import { loadAdminToken, serveAdmin } from "../server/admin-listener.js"
import { backgroundSync } from "../server/background-sync.js"
import { makeContactsPusher } from "../server/contacts-push.js"
import { listenerLayer } from "../server/listener.js"
import { PrometheusMetrics } from "../server/metrics.js"
import { serveAdminRouter, serveWebhookRouter } from "../server/router.js"
import { ServeState, ServeStateLive } from "../server/serve-state.js"
import { storeClientLayer } from "../jobs/layers.js"
import { DatabaseLive } from "../warehouse/database.js"
import { Inbox } from "../webhooks/inbox.js"
import { WebhookRejections, WebhookRejectionsLive } from "../webhooks/rejections.js"
import { InboxSignal } from "../webhooks/worker.js"

/**
 * The process: HTTP routes, the inbox worker and the background sync, in one scope. Its finalizers run in reverse:
 * first new deliveries are refused (503), then the sync and the worker stop (the delivery being applied finishes;
 * what is pending stays in the inbox for the next start), then the routes go.
 */
const serve = (admin: AdminSettings, token: Option.Option<Redacted.Redacted<string>>) => Effect.gen(function*() {
  const settings = yield* storeSettingsConfig
  const { webhookSecret, syncEveryMs, host, port } = yield* serveSettingsConfig
  if (Option.isNone(webhookSecret)) yield* Effect.logWarning("serve: STORE_WEBHOOK_SECRET is not set: every webhook delivery will be refused (401); only the background sync keeps the warehouse current")
  const pusher = yield* makeContactsPusher(yield* marketingSettingsOption, settings.storeId)
  yield* HttpServer.serveEffect(serveWebhookRouter(webhookSecret, yield* inboxMaxBytesConfig))
  yield* Effect.logInfo(
    `serve: listening on http://${host}:${port}: webhook deliveries POST /webhooks/store (or /webhooks/store/${settings.storeId}), ` +
      `health GET /healthz; background sync every ${Duration.format(Duration.millis(syncEveryMs))}`
  )
  yield* serveAdmin(admin, token, serveAdminRouter(yield* Inbox, yield* WebhookRejections), "status page GET /, metrics GET /metrics, health with reasons GET /healthz")
  const state = yield* ServeState
  const target = { storeId: settings.storeId, settings, marketing: Option.none() }
  yield* Effect.forkScoped((yield* StoreJobs).inboxWorker(target, pusher, state.inboxWorkerUp))
  yield* Effect.forkScoped(backgroundSync(target, pusher))
  yield* Effect.addFinalizer(() =>
    Effect.zipRight(Ref.set(state.accepting, false), Effect.logInfo("serve: stopping: new deliveries are refused (503); finishing the delivery being applied")))
  return yield* Effect.never
}).pipe(Effect.scoped)

/** Everything `serve` runs on, built from the configuration when the command starts. */
const serveLayer = Effect.gen(function*() {
  const settings = yield* storeSettingsConfig
  const { host, port, syncEveryMs } = yield* serveSettingsConfig
  return Layer.mergeAll(
    listenerLayer({ host, port }),
    storeClientLayer(settings),
    ServeStateLive(settings.storeId, syncEveryMs),
    InboxSignal.Default,
    PrometheusMetrics.Default,
    WebhookRejectionsLive({ tagStore: false }),
    Layer.mergeAll(Inbox.Default, StoreJobs.Default).pipe(Layer.provideMerge(DatabaseLive))
  )
})

/** `shopsync serve` (cli/lazy-commands.ts): the admin token is read before the warehouse starts, so an unreadable file stops the command at once. */
export const start = Effect.gen(function*() {
  const admin = yield* adminSettingsConfig
  const token = yield* loadAdminToken(admin)
  return yield* Effect.provide(serve(admin, token), yield* serveLayer)
})
