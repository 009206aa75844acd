import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { createHash } from "node:crypto"
import { Effect, Option, Redacted, Ref } from "effect"
import { LISTENER_BUSY_RETRY_AFTER_S } from "../config/listener-limits.js"
import { errorText } from "../sync/errors.js"
import { countDelivery, type DeliveryCounter, type DeliveryOutcome } from "../webhooks/delivery-metrics.js"
import { deliveryHeaders, isPing, signatureMatches } from "../webhooks/headers.js"
import { bodyDigest, Inbox, type Received } from "../webhooks/inbox.js"
import { type RejectionCause, WebhookRejections } from "../webhooks/rejections.js"
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

/** Why a delivery is refused, in the answer's words, and the cause it is counted and logged under. */
export interface Refusal {
  readonly cause: RejectionCause
  readonly error: string
}

/** The store a delivery is for, and how its signature is checked: undefined when it matches, else why not (401). */
export interface DeliveryTarget {
  readonly _tag: "Target"
  readonly storeId: string
  /** The store its deliveries are counted under, when not storeId: unregistered ids share one, so random ids add no series. */
  readonly countedAs?: string
  readonly verify: (body: Uint8Array, signature: string | undefined) => Effect.Effect<Refusal | undefined>
}

/** A delivery refused before its body is read: the answer's status, and the store it is counted under. */
export interface Refused extends Refusal {
  readonly _tag: "Refused"
  readonly status: number
  readonly countedAs: string
  /** What the log line may add (an error's text), never the client's input. */
  readonly detail?: string
}

/** What differs between `serve` (one store, one secret) and a worker (every registered store, each its secret). */
export interface IntakeOptions<R1, R2> {
  /** False once the process is stopping: new deliveries get 503 (the store sends them again later). */
  readonly accepting: Ref.Ref<boolean>
  /** The store of /webhooks/store[/<id>] (`id` undefined without one), or why the delivery is refused. */
  readonly target: (id: string | undefined) => Effect.Effect<DeliveryTarget | Refused, never, R1>
  /** Run once the delivery is in the inbox (new or a resend), before the 200: has it applied. */
  readonly stored: (delivery: Received) => Effect.Effect<void, never, R2>
  /** How deliveries are counted: with their store's tag on a worker, without on serve (one store). */
  readonly count: DeliveryCounter
  /** Where refusals are counted by cause and logged. */
  readonly rejections: WebhookRejections["Type"]
  /** SHOPSYNC_INBOX_MAX_MB in bytes: what one store's inbox may hold. */
  readonly inboxMaxBytes: number
}

/**
 * POST /webhooks/store[/<store_id>]: a delivery is verified (base64 HMAC-SHA256 of the raw body under the store's
 * webhook secret), stored in the inbox and answered 200 at once; `stored` has it applied. The creation ping
 * (unsigned `webhook_id=<id>`) is answered 200 and not stored. A store whose inbox is full gets 503 with Retry-After
 * (the store may send it again; the background sync reads what it changed in any case). Every refusal but the one
 * of a stopping process is counted and logged by cause (webhooks/rejections.ts).
 */
export const deliveryIntake = <R1, R2>(options: IntakeOptions<R1, R2>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!(yield* Ref.get(options.accepting))) return answer(503, { error: "shutting down; send again later" })
    const target = yield* options.target((yield* HttpRouter.params).storeId)
    const countedAs = target._tag === "Refused" ? target.countedAs : target.countedAs ?? target.storeId
    /** Counts the refusal (and its outcome in shopsync_webhook_deliveries_total, if it has one) and gives `response`. */
    const refuse = (cause: RejectionCause, response: HttpServerResponse.HttpServerResponse, outcome?: DeliveryOutcome, detail?: string) =>
      options.rejections.record(cause, countedAs, detail).pipe(
        Effect.zipRight(outcome === undefined ? Effect.void : options.count(outcome, countedAs)),
        Effect.as(response)
      )
    if (target._tag === "Refused") return yield* refuse(target.cause, answer(target.status, { error: target.error }), undefined, target.detail)
    const { storeId } = target
    const raw = yield* limitedBody(request, MAX_BODY_BYTES)
    // The rest of the body is left unread: the connection closes with the answer.
    if (raw === "too-large") {
      return yield* refuse("too_large", answer(413, { error: `body larger than ${MAX_BODY_BYTES} bytes` }).pipe(HttpServerResponse.setHeader("connection", "close")), "rejected")
    }
    if (raw === "busy") return yield* refuse("busy", busy)
    const text = Buffer.from(raw).toString("utf8")
    const headers = deliveryHeaders(request.headers)
    if (headers.signature === undefined && isPing(request.headers["content-type"], text)) return answer(200, { ping: true })
    const refusal = yield* target.verify(raw, headers.signature)
    if (refusal !== undefined) return yield* refuse(refusal.cause, answer(401, { error: refusal.error }), "rejected")
    if (headers.topic === undefined || headers.webhookId === undefined) return yield* refuse("headers", answer(400, { error: "missing webhook topic or id header" }), "rejected")
    const digest = bodyDigest(headers.topic, raw)
    const delivery = { storeId, webhookId: headers.webhookId, deliveryId: headers.deliveryId ?? createHash("sha256").update(raw).digest("hex"), topic: headers.topic, body: text, digest }
    const stored = yield* Effect.either(Effect.flatMap(Inbox, (inbox) => inbox.add(delivery, options.inboxMaxBytes)))
    if (stored._tag === "Left") return yield* refuse("warehouse", answer(503, { error: "the warehouse is not available; send again later" }), undefined, errorText(stored.left))
    if (stored.right === "full") {
      return yield* refuse("inbox_full", answer(503, { error: "the inbox is full; send again later" }).pipe(HttpServerResponse.setHeader("retry-after", String(FULL_RETRY_AFTER_S))), "full")
    }
    yield* options.count("accepted", storeId)
    yield* options.stored(delivery)
    return answer(200, { stored: stored.right })
  })

/** `serve`'s intake: its one store (STORE_ID), checked against STORE_WEBHOOK_SECRET, applied by its inbox worker. */
export const webhookRoute = (secret: Option.Option<Redacted.Redacted<string>>, inboxMaxBytes: number) =>
  Effect.flatMap(Effect.all([ServeState, WebhookRejections]), ([state, rejections]) =>
    deliveryIntake({
      accepting: state.accepting,
      count: countDelivery,
      rejections,
      inboxMaxBytes,
      target: (id) => Effect.succeed<DeliveryTarget | Refused>(
        id !== undefined && id !== state.storeId
          ? { _tag: "Refused", status: 404, cause: "wrong_url", error: `this server takes deliveries for store ${state.storeId}`, countedAs: state.storeId }
          : {
            _tag: "Target",
            storeId: state.storeId,
            verify: (body, signature) => Effect.succeed<Refusal | undefined>(
              Option.isNone(secret)
                ? { cause: "no_secret", error: "STORE_WEBHOOK_SECRET is not set: no delivery can be verified" }
                : signatureMatches(body, signature, Redacted.value(secret.value)) ? undefined : { cause: "signature", error: WRONG_SIGNATURE }
            )
          }
      ),
      stored: () => Effect.flatMap(InboxSignal, (signal) => signal.notify)
    }))
