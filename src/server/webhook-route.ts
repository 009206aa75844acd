import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { createHash } from "node:crypto"
import { Effect, Option, Redacted, Ref } from "effect"
import { LISTENER_BUSY_RETRY_AFTER_S } from "../config/listener-limits.js"
import { errorText } from "../sync/errors.js"
import { countDelivery, type DeliveryCounter } from "../webhooks/delivery-metrics.js"
import { deliveryHeaders, isPing, signatureMatches } from "../webhooks/headers.js"
import { bodyDigest, Inbox, type Received } from "../webhooks/inbox.js"
import { InboxSignal } from "../webhooks/worker.js"
import { limitedBody } from "./limited-body.js"
import { ServeState } from "./serve-state.js"

/** The largest body taken; a larger one is refused (413) without reading past this. */
export const MAX_BODY_BYTES = 1024 * 1024

export const answer = (status: number, body: Record<string, unknown>) => HttpServerResponse.unsafeJson(body, { status })

/** The refusal of a signature that does not match, and of a store id that is not registered (not told apart). */
export const WRONG_SIGNATURE = "missing or wrong signature"

/** The answer when the body budget is spent (many bodies arriving at once, or slowly): the store sends it again. */
const busy = answer(503, { error: "too many deliveries arriving at once; send again later" }).pipe(
  HttpServerResponse.setHeaders({ "retry-after": String(LISTENER_BUSY_RETRY_AFTER_S), connection: "close" })
)

/** How long a store whose inbox is full is asked to wait: the worker applies a backlog in seconds, not minutes. */
const FULL_RETRY_AFTER_S = 60

/** The store a delivery is for, and how its signature is checked: undefined when it matches, else why not (401). */
export interface DeliveryTarget {
  readonly storeId: string
  /** The store its deliveries are counted under, when not storeId: unregistered ids share one, so random ids add no series. */
  readonly countedAs?: string
  readonly verify: (body: Uint8Array, signature: string | undefined) => Effect.Effect<string | undefined>
}

/** What differs between `serve` (one store, one secret) and a worker (every registered store, each its secret). */
export interface IntakeOptions<R1, R2> {
  /** False once the process is stopping: new deliveries get 503 (the store sends them again later). */
  readonly accepting: Ref.Ref<boolean>
  /** The store of /webhooks/store[/<id>] (`id` undefined without one), or the answer refusing the delivery. */
  readonly target: (id: string | undefined) => Effect.Effect<DeliveryTarget | HttpServerResponse.HttpServerResponse, never, R1>
  /** Run once the delivery is in the inbox (new or a resend), before the 200: has it applied. */
  readonly stored: (delivery: Received) => Effect.Effect<void, never, R2>
  /** How deliveries are counted: with their store's tag on a worker, without on serve (one store). */
  readonly count: DeliveryCounter
  /** SHOPSYNC_INBOX_MAX_MB in bytes: what one store's inbox may hold. */
  readonly inboxMaxBytes: number
}

/**
 * POST /webhooks/store[/<store_id>]: a delivery is verified (base64 HMAC-SHA256 of the raw body under the store's
 * webhook secret), stored in the inbox and answered 200 at once; `stored` has it applied. The creation ping
 * (unsigned `webhook_id=<id>`) is answered 200 and not stored. A store whose inbox is full gets 503 with Retry-After
 * (the store may send it again; the background sync reads what it changed in any case).
 */
export const deliveryIntake = <R1, R2>(options: IntakeOptions<R1, R2>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!(yield* Ref.get(options.accepting))) return answer(503, { error: "shutting down; send again later" })
    const target = yield* options.target((yield* HttpRouter.params).storeId)
    if (HttpServerResponse.isServerResponse(target)) return target
    const { storeId } = target
    const rejected = (status: number, error: string) => Effect.as(options.count("rejected", target.countedAs ?? storeId), answer(status, { error }))
    const raw = yield* limitedBody(request, MAX_BODY_BYTES)
    // The rest of the body is left unread: the connection closes with the answer.
    if (raw === "too-large") return yield* Effect.map(rejected(413, `body larger than ${MAX_BODY_BYTES} bytes`), HttpServerResponse.setHeader("connection", "close"))
    if (raw === "busy") return busy
    const text = Buffer.from(raw).toString("utf8")
    const headers = deliveryHeaders(request.headers)
    if (headers.signature === undefined && isPing(request.headers["content-type"], text)) return answer(200, { ping: true })
    const refusal = yield* target.verify(raw, headers.signature)
    if (refusal !== undefined) return yield* rejected(401, refusal)
    if (headers.topic === undefined || headers.webhookId === undefined) return yield* rejected(400, "missing webhook topic or id header")
    const digest = bodyDigest(headers.topic, raw)
    const delivery = { storeId, webhookId: headers.webhookId, deliveryId: headers.deliveryId ?? createHash("sha256").update(raw).digest("hex"), topic: headers.topic, body: text, digest }
    const stored = yield* Effect.either(Effect.flatMap(Inbox, (inbox) => inbox.add(delivery, options.inboxMaxBytes)))
    if (stored._tag === "Left") {
      yield* Effect.logWarning(`webhooks: delivery not stored (the store will send it again): ${errorText(stored.left)}`)
      return answer(503, { error: "the warehouse is not available; send again later" })
    }
    if (stored.right === "full") {
      yield* options.count("full", storeId)
      yield* Effect.logWarning(`webhooks: store ${storeId}'s inbox is full (SHOPSYNC_INBOX_MAX_MB of pending and failed deliveries): delivery refused (503)`)
      return answer(503, { error: "the inbox is full; send again later" }).pipe(HttpServerResponse.setHeader("retry-after", String(FULL_RETRY_AFTER_S)))
    }
    yield* options.count("accepted", storeId)
    yield* options.stored(delivery)
    return answer(200, { stored: stored.right })
  })

/** `serve`'s intake: its one store (STORE_ID), checked against STORE_WEBHOOK_SECRET, applied by its inbox worker. */
export const webhookRoute = (secret: Option.Option<Redacted.Redacted<string>>, inboxMaxBytes: number) =>
  Effect.flatMap(ServeState, (state) =>
    deliveryIntake({
      accepting: state.accepting,
      count: countDelivery,
      inboxMaxBytes,
      target: (id) => Effect.succeed<DeliveryTarget | HttpServerResponse.HttpServerResponse>(
        id !== undefined && id !== state.storeId
          ? answer(404, { error: `this server takes deliveries for store ${state.storeId}` })
          : {
            storeId: state.storeId,
            verify: (body, signature) => Effect.succeed(
              Option.isNone(secret)
                ? "STORE_WEBHOOK_SECRET is not set: no delivery can be verified"
                : signatureMatches(body, signature, Redacted.value(secret.value)) ? undefined : WRONG_SIGNATURE
            )
          }
      ),
      stored: () => Effect.flatMap(InboxSignal, (signal) => signal.notify)
    }))
