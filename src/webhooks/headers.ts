import { createHash, createHmac, timingSafeEqual } from "node:crypto"

/** The X-…-Webhook-* headers of one delivery: the seed's `X-Shop-` names or WooCommerce's `X-WC-` ones. */
export interface DeliveryHeaders {
  readonly signature: string | undefined
  readonly topic: string | undefined
  readonly webhookId: string | undefined
  readonly deliveryId: string | undefined
  readonly source: string | undefined
}

/** A header by its suffix, under either prefix; `headers` has lower-cased names (as Node gives them). */
const header = (headers: Readonly<Record<string, string | undefined>>, suffix: string): string | undefined =>
  headers[`x-wc-webhook-${suffix}`] ?? headers[`x-shop-webhook-${suffix}`]

export const deliveryHeaders = (headers: Readonly<Record<string, string | undefined>>): DeliveryHeaders => ({
  signature: header(headers, "signature"),
  topic: header(headers, "topic"),
  webhookId: header(headers, "id"),
  deliveryId: header(headers, "delivery-id"),
  source: header(headers, "source")
})

/** base64 HMAC-SHA256 of the exact body, keyed with the secret: what the store sends as the signature. */
export const sign = (body: Uint8Array, secret: string): string => createHmac("sha256", secret).update(body).digest("base64")

/**
 * Whether `signature` is the body's, compared in constant time: both sides are hashed to 32 bytes first, so
 * neither the length nor the content of a forged value tells anything about the expected one.
 */
export const signatureMatches = (body: Uint8Array, signature: string | undefined, secret: string): boolean => {
  if (signature === undefined || signature === "") return false
  const digest = (s: string) => createHash("sha256").update(s).digest()
  return timingSafeEqual(digest(sign(body, secret)), digest(signature.trim()))
}

/** The creation ping: form-encoded `webhook_id=<id>`, unsigned. */
export const isPing = (contentType: string | undefined, body: string): boolean =>
  /application\/x-www-form-urlencoded/i.test(contentType ?? "") && /^webhook_id=\d+$/.test(body.trim())

/** Topics whose deliveries are taken: a resource and an event the worker knows. */
export const TOPICS = [
  "order.created", "order.updated", "order.deleted",
  "customer.created", "customer.updated", "customer.deleted",
  "product.created", "product.updated", "product.deleted"
] as const
export type Topic = (typeof TOPICS)[number]
