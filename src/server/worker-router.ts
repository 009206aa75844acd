import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { type Duration, Effect, Metric, Redacted, type Ref } from "effect"
import { heldShards, holdsStore } from "../cluster/shards.js"
import { Store } from "../cluster/store-entity.js"
import { StoreRegistry } from "../stores/registry.js"
import { errorText } from "../sync/errors.js"
import { countStoreDelivery } from "../webhooks/delivery-metrics.js"
import { signatureMatches } from "../webhooks/headers.js"
import { Inbox, type Received } from "../webhooks/inbox.js"
import { WebhookRejections } from "../webhooks/rejections.js"
import { runnerHealthz, withoutReasons } from "./healthz.js"
import { html } from "./html.js"
import { type MeasuredStore, metricsOf, runnerShards } from "./metrics.js"
import { webhookSummary } from "./router.js"
import { PAGE_HEADERS, storePageResponse } from "./status-page.js"
import { storesPageResponse } from "./stores-page.js"
import { type DeliveryTarget, deliveryIntake, type Refusal, type Refused, WRONG_SIGNATURE } from "./webhook-route.js"
import { type StoreSecret, WebhookSecrets } from "./webhook-secrets.js"

export interface WorkerHttpOptions {
  /** False once SIGTERM arrived: new deliveries get 503 while the runner hands its shards over. */
  readonly accepting: Ref.Ref<boolean>
  /** This runner's address, host:port, as the cluster's runner table has it. */
  readonly runner: string
  /** A heartbeat older than this means the other runners no longer count this one. */
  readonly heartbeatExpiry: Duration.Duration
  /** SHOPSYNC_INBOX_MAX_MB in bytes: what each store's inbox may hold. */
  readonly inboxMaxBytes: number
}

/** Why a delivery's signature is refused under what the registry holds for the store, or undefined when it matches. */
const refusal = (storeId: string, found: StoreSecret, body: Uint8Array, signature: string | undefined): Refusal | undefined => {
  switch (found._tag) {
    case "Secret":
      return signatureMatches(body, signature, Redacted.value(found.secret)) ? undefined : { cause: "signature", error: WRONG_SIGNATURE }
    case "NoSecret":
      return { cause: "no_secret", error: `store ${storeId} has no webhook secret registered, so no delivery can be verified: register the store with --webhook-secret-env` }
    case "Unknown":
      // Worded as a wrong signature, so that store ids cannot be found out by trying them.
      return { cause: "signature", error: WRONG_SIGNATURE }
    case "Unreadable":
      return { cause: "secret_unreadable", error: `store ${storeId}'s webhook secret could not be read: ${found.reason}` }
  }
}

/** The store tag under which deliveries to unregistered ids are counted (and those whose store could not be looked up). */
const UNREGISTERED = "(unregistered)"

/**
 * The store of /webhooks/store/<id> with its registered secret; a refused signature is checked once more against a
 * fresh read. An unregistered id is answered as a wrong signature (same status, body, headers, and its body read the
 * same way) from the registry as last read: no read of its own, so random ids cost nothing.
 */
const target = (secrets: WebhookSecrets) => (id: string | undefined): Effect.Effect<DeliveryTarget | Refused> =>
  Effect.gen(function*() {
    if (id === undefined) {
      return { _tag: "Refused", status: 404, cause: "wrong_url", error: "a worker takes deliveries at /webhooks/store/<store_id>, for every registered store", countedAs: UNREGISTERED } satisfies Refused
    }
    const found = yield* secrets.lookup(id, false)
    if (found._tag === "Unreadable") {
      return { _tag: "Refused", status: 503, cause: "secret_unreadable", error: "the store registry is not available; send again later", countedAs: UNREGISTERED, detail: found.reason } satisfies Refused
    }
    if (found._tag === "Unknown") {
      return { _tag: "Target", storeId: id, countedAs: UNREGISTERED, verify: () => Effect.succeed<Refusal | undefined>({ cause: "signature", error: WRONG_SIGNATURE }) } satisfies DeliveryTarget
    }
    const verify = (body: Uint8Array, signature: string | undefined) =>
      refusal(id, found, body, signature) === undefined
        ? Effect.succeed(undefined)
        : Effect.map(secrets.lookup(id, true), (again) => refusal(id, again, body, signature))
    return { _tag: "Target", storeId: id, verify } satisfies DeliveryTarget
  })

/**
 * Sends the store's entity an ApplyDelivery, persisted and keyed by the delivery (a resend of it is a duplicate there
 * too). When the send fails the delivery still waits in the inbox: the store's next ApplyDelivery or SyncNow applies it.
 */
const applyDelivery = (client: Effect.Effect.Success<typeof Store.client>) => (delivery: Received) =>
  client(delivery.storeId).ApplyDelivery({ key: `delivery-${delivery.webhookId}-${delivery.deliveryId}`, deliveryId: delivery.deliveryId }, { discard: true }).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning(`webhooks: store ${delivery.storeId}'s ApplyDelivery not sent (its next sync applies the delivery)`, cause))
  )

/**
 * The routes of `shopsync worker`. The webhook listener: intake for every registered store and a /healthz without
 * reasons. The admin listener: /healthz with them, metrics (the stores this runner holds, so that across workers each
 * store is reported once), the page across stores and each store's own page.
 */
export const workerRouter = (options: WorkerHttpOptions) =>
  Effect.gen(function*() {
    const [registry, inbox, secrets, client, rejections] = yield* Effect.all([StoreRegistry, Inbox, WebhookSecrets, Store.client, WebhookRejections])
    const intake = deliveryIntake({
      accepting: options.accepting, count: countStoreDelivery, rejections, inboxMaxBytes: options.inboxMaxBytes, target: target(secrets), stored: applyDelivery(client)
    })
    const measured = Effect.gen(function*() {
      yield* Metric.set(Metric.tagged(runnerShards, "runner", options.runner), yield* heldShards)
      const held = yield* Effect.filter(yield* registry.list, (s) => holdsStore(s.storeId))
      return held.map((s): MeasuredStore => ({ storeId: s.storeId, webhooks: webhookSummary(inbox, rejections, s.storeId) }))
    })
    const storePage = Effect.gen(function*() {
      const { storeId } = yield* HttpRouter.params
      const found = yield* Effect.either(registry.get(storeId!))
      if (found._tag === "Left" && found.left._tag === "StoreNotRegistered") {
        return HttpServerResponse.html(html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>shopsync · not registered</title></head><body><h1>Store ${storeId} is not registered</h1><p><a href="/">All stores</a></p></body></html>`.text).pipe(
          HttpServerResponse.setStatus(404), HttpServerResponse.setHeaders(PAGE_HEADERS))
      }
      if (found._tag === "Left") yield* Effect.logWarning(`status page: store ${storeId}: ${errorText(found.left)}`)
      return yield* storePageResponse(storeId!, webhookSummary(inbox, rejections, storeId!))
    })
    const health = runnerHealthz(options.runner, options.heartbeatExpiry)
    return {
      webhooks: HttpRouter.empty.pipe(
        HttpRouter.post("/webhooks/store", intake),
        HttpRouter.post("/webhooks/store/:storeId", intake),
        HttpRouter.get("/healthz", withoutReasons(health))
      ),
      admin: HttpRouter.empty.pipe(
        HttpRouter.get("/healthz", health),
        HttpRouter.get("/metrics", metricsOf(measured)),
        HttpRouter.get("/", storesPageResponse(Effect.all({ stores: registry.list, waiting: inbox.waiting }), options.runner)),
        HttpRouter.get("/stores/:storeId", storePage)
      )
    }
  })
