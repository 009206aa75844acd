import { Command } from "@effect/cli"
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

/** The admin token is read before the warehouse starts: an unreadable file stops the command at once. */
const start = Effect.gen(function*() {
  const admin = yield* adminSettingsConfig
  const token = yield* loadAdminToken(admin)
  return yield* Effect.provide(serve(admin, token), yield* serveLayer)
})

export const serveCommand = Command.make("serve", {}, () => start).pipe(
  Command.withDescription(
    "Keeps the warehouse fresh within seconds until stopped (the mode for a systemd service or a Kubernetes Deployment). " +
      "A webhook listener on SHOPSYNC_HTTP_HOST " +
      "(default 127.0.0.1) and SHOPSYNC_HTTP_PORT (default 8787) that takes the store's signed webhooks at POST /webhooks/store " +
      "(checked against STORE_WEBHOOK_SECRET; subscribe them with `shopsync store-hooks ensure --url …`), stores each in an inbox " +
      "and applies it within a second, only when it is newer than what the warehouse holds; the changed contacts are pushed " +
      "when the marketing variables are set. Every SHOPSYNC_SYNC_EVERY (default 5m; e.g. 90s, 1h) it runs the same sync as " +
      "`shopsync sync`, under the same lock, which catches what a lost or disabled webhook missed. GET /healthz answers 200, or " +
      "503 when the warehouse does not answer, the inbox worker is not running, the oldest pending delivery waited over 10 minutes, " +
      "or no scheduled sync finished for three intervals (the status only: the reason is on the admin listener). A second, " +
      "admin listener on SHOPSYNC_ADMIN_HOST (default 127.0.0.1) and SHOPSYNC_ADMIN_PORT (default 8788) serves GET / (a status " +
      "page: streams, runs, webhook deliveries and the ones rejected per cause, quarantine, daily net sales over the 90 days ending at the " +
      "last day with sales or ?from=YYYY-MM-DD&to=YYYY-MM-DD and their top products; e-mail addresses masked), GET /metrics " +
      "(Prometheus text) and GET /healthz with its reason; off loopback it needs SHOPSYNC_ADMIN_TOKEN (or SHOPSYNC_ADMIN_TOKEN_FILE) " +
      "as Authorization: Bearer, and serve refuses to start without one. SIGTERM: new deliveries get " +
      "503, the one being applied finishes, exit 143; the next start applies what is left in the inbox. With " +
      "SHOPSYNC_ALERT_WEBHOOK_URL (or SHOPSYNC_ALERT_WEBHOOK_URL_FILE; https:// unless on loopback or SHOPSYNC_ALERT_ALLOW_HTTP=1) " +
      "a failed background sync POSTs a JSON alert there, and so does the store's orders data going without a successful run " +
      "for two intervals (once; again once when it recovers)."
  )
)
