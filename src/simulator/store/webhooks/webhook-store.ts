// Webhooks: topics bound to hooks, the delivery log and the status machine of seed part 2 §3 — active until an
// administrator pauses it, disabled after 5 consecutive failed deliveries (any answer outside 2xx, or none),
// active again when edited back to active. A delete without force moves the webhook to the trash (seed part 1
// §4.1): it stops delivering and leaves the lists; an edit that sets a status brings it back.
import { createHash } from "node:crypto"
import { ADMIN_USER_ID } from "../catalog.ts"
import { wcError } from "../rest/errors.ts"
import type { HookEvent, HookResource } from "./events.ts"
import type { Ids } from "../ids.ts"
import type { SiteTime } from "../dates.ts"

export const WEBHOOK_STATUSES = ["active", "paused", "disabled"] as const
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number]

/** Consecutive failed deliveries that disable a webhook. */
const MAX_FAILURES = 5

export interface WebhookRecord {
  readonly id: number
  name: string
  status: WebhookStatus
  topic: string
  deliveryUrl: string
  secret: string
  created: number
  modified: number
  /** Consecutive failed deliveries so far. */
  failures: number
  trashed: boolean
}

export interface DeliveryRecord {
  readonly id: number
  readonly webhookId: number
  /** Epoch seconds (simulator clock) when the delivery was made. */
  date: number
  /** Seconds the request took (wall time). */
  duration: number
  request: { url: string; method: string; headers: Record<string, string>; body: string }
  /** code 0 when no answer came (connection refused, timeout). */
  response: { code: number; message: string; headers: Record<string, string>; body: string }
}

export interface WebhookInput {
  name?: string
  status?: string
  topic?: string
  delivery_url?: string
  secret?: string
}

/** WooCommerce's topic → hooks table (wc_get_webhook_topic_hooks). */
const TOPIC_HOOKS: Readonly<Record<string, ReadonlyArray<string>>> = {
  "coupon.created": ["woocommerce_process_shop_coupon_meta", "woocommerce_new_coupon"],
  "coupon.updated": ["woocommerce_process_shop_coupon_meta", "woocommerce_update_coupon"],
  "coupon.deleted": ["wp_trash_post"],
  "coupon.restored": ["untrashed_post"],
  "customer.created": ["user_register", "woocommerce_created_customer", "woocommerce_new_customer"],
  "customer.updated": ["profile_update", "woocommerce_update_customer"],
  "customer.deleted": ["delete_user"],
  "order.created": ["woocommerce_new_order"],
  "order.updated": ["woocommerce_update_order", "woocommerce_order_refunded"],
  "order.deleted": ["wp_trash_post"],
  "order.restored": ["untrashed_post"],
  "product.created": ["woocommerce_process_product_meta", "woocommerce_new_product", "woocommerce_new_product_variation"],
  "product.updated": ["woocommerce_process_product_meta", "woocommerce_update_product", "woocommerce_update_product_variation"],
  "product.deleted": ["wp_trash_post"],
  "product.restored": ["untrashed_post"],
}

export const topicParts = (topic: string): { resource: string; event: string } => {
  const dot = topic.indexOf(".")
  return { resource: topic.slice(0, dot), event: topic.slice(dot + 1) }
}

export const hooksOf = (topic: string): ReadonlyArray<string> => TOPIC_HOOKS[topic] ?? (topic.startsWith("action.") ? [topic.slice("action.".length)] : [])

const validTopic = (topic: string): boolean => topic in TOPIC_HOOKS || /^action\.[A-Za-z0-9_\-/.]+$/.test(topic)

const validUrl = (url: string): boolean => {
  try {
    return ["http:", "https:"].includes(new URL(url).protocol)
  } catch {
    return false
  }
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

/** "Webhook created on Apr 01, 2025 @ 10:00 AM" in site time, as WooCommerce names unnamed webhooks. */
const defaultName = (site: SiteTime, now: number): string => {
  const d = new Date(site.wall(now) * 1000)
  const hour = d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12
  const pad = (n: number) => String(n).padStart(2, "0")
  return `Webhook created on ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCDate())}, ${d.getUTCFullYear()} @ ${pad(hour)}:${pad(d.getUTCMinutes())} ${d.getUTCHours() < 12 ? "AM" : "PM"}`
}

export class WebhookStore {
  readonly byId = new Map<number, WebhookRecord>()
  readonly deliveries: DeliveryRecord[] = []

  constructor(
    private readonly ids: Ids,
    private readonly now: () => number,
    private readonly site: SiteTime,
  ) {}

  create(input: WebhookInput): WebhookRecord {
    const topic = input.topic ?? ""
    if (!validTopic(topic)) throw wcError(400, "woocommerce_rest_webhook_invalid_topic", "Webhook topic is required and must be valid.")
    const url = input.delivery_url ?? ""
    if (!validUrl(url)) throw wcError(400, "woocommerce_rest_webhook_invalid_delivery_url", "Webhook delivery URL must be a valid URL starting with http:// or https://.")
    const now = this.now()
    const webhook: WebhookRecord = {
      id: this.ids.take("webhook"),
      name: input.name === undefined || input.name === "" ? defaultName(this.site, now) : input.name,
      status: this.status(input.status) ?? "active",
      topic,
      deliveryUrl: url,
      // The default secret is derived from the user creating the webhook (and the moment).
      secret: input.secret === undefined || input.secret === "" ? createHash("sha256").update(`${ADMIN_USER_ID}:${now}`).digest("hex").slice(0, 50) : input.secret,
      created: now,
      modified: now,
      failures: 0,
      trashed: false,
    }
    this.byId.set(webhook.id, webhook)
    return webhook
  }

  update(w: WebhookRecord, input: WebhookInput): WebhookRecord {
    if (input.topic !== undefined && !validTopic(input.topic)) throw wcError(400, "woocommerce_rest_webhook_invalid_topic", "Webhook topic must be valid.")
    if (input.delivery_url !== undefined && !validUrl(input.delivery_url)) {
      throw wcError(400, "woocommerce_rest_webhook_invalid_delivery_url", "Webhook delivery URL must be a valid URL starting with http:// or https://.")
    }
    const status = this.status(input.status)
    if (input.name !== undefined) w.name = input.name
    if (input.topic !== undefined) w.topic = input.topic
    if (input.delivery_url !== undefined) w.deliveryUrl = input.delivery_url
    if (input.secret !== undefined && input.secret !== "") w.secret = input.secret
    if (status !== undefined) {
      // Editing the status back to active re-enables a disabled webhook with a clean failure count.
      if (status === "active") w.failures = 0
      w.status = status
      w.trashed = false
    }
    w.modified = this.now()
    return w
  }

  trash(w: WebhookRecord): WebhookRecord {
    if (w.trashed) throw wcError(410, "woocommerce_rest_already_trashed", "The webhook has already been deleted.")
    w.trashed = true
    w.modified = this.now()
    return w
  }

  delete(w: WebhookRecord): void {
    this.byId.delete(w.id)
  }

  /** Webhooks that take the event now: active, not trashed, bound to the hook, of the hook's resource. */
  listeners(event: HookEvent): WebhookRecord[] {
    return [...this.byId.values()].filter(
      (w) => w.status === "active" && !w.trashed && hooksOf(w.topic).includes(event.hook) && resourceMatches(w.topic, event.resource),
    )
  }

  /** Logs a delivery and runs the failure count: 5 in a row disable the webhook, a success resets the count. */
  record(w: WebhookRecord, delivery: DeliveryRecord): void {
    this.deliveries.push(delivery)
    const ok = delivery.response.code >= 200 && delivery.response.code < 300
    if (ok) {
      w.failures = 0
      return
    }
    w.failures++
    if (w.failures >= MAX_FAILURES && w.status === "active") {
      w.status = "disabled"
      w.modified = this.now()
    }
  }

  deliveriesOf(webhookId: number): DeliveryRecord[] {
    return this.deliveries.filter((d) => d.webhookId === webhookId)
  }

  private status(value: string | undefined): WebhookStatus | undefined {
    if (value === undefined) return undefined
    if (!(WEBHOOK_STATUSES as ReadonlyArray<string>).includes(value)) {
      throw wcError(400, "rest_invalid_param", "Invalid parameter(s): status", { params: { status: `status is not one of ${WEBHOOK_STATUSES.join(", ")}.` } })
    }
    return value as WebhookStatus
  }
}

/** Hooks like wp_trash_post fire for every post type: a topic only takes the events of its own resource. */
const resourceMatches = (topic: string, resource: HookResource | undefined): boolean => {
  const { resource: wanted } = topicParts(topic)
  return wanted === "action" || resource === undefined || resource === wanted
}
