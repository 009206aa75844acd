import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { createHash } from "node:crypto"
import { Effect, Option, Redacted, Ref } from "effect"
import { errorText } from "../sync/errors.js"
import { countDelivery } from "../webhooks/delivery-metrics.js"
import { deliveryHeaders, isPing, signatureMatches } from "../webhooks/headers.js"
import { Inbox } from "../webhooks/inbox.js"
import { InboxSignal } from "../webhooks/worker.js"
import { limitedBody } from "./limited-body.js"
import { ServeState } from "./serve-state.js"

/** The largest body taken; a larger one is refused (413) without reading past this. */
export const MAX_BODY_BYTES = 1024 * 1024

const answer = (status: number, body: Record<string, unknown>) => HttpServerResponse.unsafeJson(body, { status })

const rejected = (status: number, error: string) => Effect.as(countDelivery("rejected"), answer(status, { error }))

/**
 * POST /webhooks/store[/<store_id>]: a delivery is verified (base64 HMAC-SHA256 of the raw body under
 * STORE_WEBHOOK_SECRET), stored in the inbox and answered 200 at once; the worker applies it. The creation ping
 * (unsigned `webhook_id=<id>`) is answered 200 and not stored.
 */
export const webhookRoute = (secret: Option.Option<Redacted.Redacted<string>>) =>
  Effect.gen(function*() {
    const [state, request] = yield* Effect.all([ServeState, HttpServerRequest.HttpServerRequest])
    if (!(yield* Ref.get(state.accepting))) return answer(503, { error: "shutting down; send again later" })
    const { storeId } = yield* HttpRouter.params
    if (storeId !== undefined && storeId !== state.storeId) return answer(404, { error: `this server takes deliveries for store ${state.storeId}` })
    const read = yield* limitedBody(request, MAX_BODY_BYTES)
    // The rest of the body is left unread: the connection closes with the answer.
    if (Option.isNone(read)) return yield* Effect.map(rejected(413, `body larger than ${MAX_BODY_BYTES} bytes`), HttpServerResponse.setHeader("connection", "close"))
    const raw = read.value
    const text = Buffer.from(raw).toString("utf8")
    const headers = deliveryHeaders(request.headers)
    if (headers.signature === undefined && isPing(request.headers["content-type"], text)) return answer(200, { ping: true })
    if (Option.isNone(secret)) return yield* rejected(401, "STORE_WEBHOOK_SECRET is not set: no delivery can be verified")
    if (!signatureMatches(raw, headers.signature, Redacted.value(secret.value))) return yield* rejected(401, "missing or wrong signature")
    if (headers.topic === undefined || headers.webhookId === undefined) return yield* rejected(400, "missing webhook topic or id header")
    const deliveryId = headers.deliveryId ?? createHash("sha256").update(raw).digest("hex")
    const stored = yield* Effect.either(Effect.flatMap(Inbox, (inbox) =>
      inbox.add({ storeId: state.storeId, webhookId: headers.webhookId!, deliveryId, topic: headers.topic!, body: text })))
    if (stored._tag === "Left") {
      yield* Effect.logWarning(`webhooks: delivery not stored (the store will send it again): ${errorText(stored.left)}`)
      return answer(503, { error: "the warehouse is not available; send again later" })
    }
    yield* countDelivery("accepted")
    yield* Effect.flatMap(InboxSignal, (signal) => signal.notify)
    return answer(200, { stored: stored.right ? "new" : "duplicate" })
  })
