// Webhook delivery (seed part 2 §6): each hook a webhook is bound to queues a delivery; deliveries run in the
// background, one at a time in firing order, after the request that caused them has been answered. A webhook
// takes one delivery per resource per burst of writes (WooCommerce's "already processed" check per request).
// The body is the resource as the API shows it ({id} for deleted, {action, arg} for action.* topics), POSTed with
// the X-Shop-Webhook-* headers and signed with base64 HMAC-SHA256 of the exact body under the webhook's secret.
// Each delivery is logged (duration, request, response); 5 consecutive non-2xx answers disable the webhook.
// A new active webhook also gets WooCommerce's unsigned, form-encoded ping (webhook_id=<id>), which is neither
// logged nor counted.
import { createHmac } from "node:crypto"
import { performance } from "node:perf_hooks"
import { WC_VERSION } from "../catalog.ts"
import { customerJson } from "../customers/customers.ts"
import type { HookEvent } from "./events.ts"
import { orderJson } from "../orders/order-json.ts"
import { productJson, variationJson } from "../products/product-json.ts"
import type { Json, RenderContext } from "../rest/render.ts"
import type { StoreState } from "../state.ts"
import { type DeliveryRecord, type WebhookRecord, topicParts } from "./webhook-store.ts"

const TIMEOUT_MS = 5000
const USER_AGENT = `WooCommerce/${WC_VERSION} Hookshot (WordPress/6.7.1)`

const signature = (body: string, secret: string): string => createHmac("sha256", secret).update(body).digest("base64")

interface Pending {
  webhookId: number
  event: HookEvent
}

export class WebhookDelivery {
  private readonly pending = new Map<string, Pending>()
  private scheduled = false
  private chain: Promise<void> = Promise.resolve()
  private readonly unsubscribe: () => void

  constructor(
    private readonly s: StoreState,
    private readonly render: () => RenderContext,
  ) {
    this.unsubscribe = s.hooks.on((event) => this.onHook(event))
  }

  /** Resolves once every delivery queued so far has been made and logged. */
  async idle(): Promise<void> {
    while (this.scheduled || this.pending.size > 0) await new Promise((resolve) => setImmediate(resolve))
    await this.chain
  }

  close(): void {
    this.unsubscribe()
  }

  private onHook(event: HookEvent): void {
    if (event.hook === "woocommerce_new_webhook") {
      const w = this.s.webhooks.byId.get(Number(event.arg))
      if (w !== undefined && w.status === "active") this.enqueue(() => this.ping(w))
      return
    }
    for (const w of this.s.webhooks.listeners(event)) this.pending.set(`${w.id}:${JSON.stringify(event.arg)}`, { webhookId: w.id, event })
    if (this.pending.size > 0 && !this.scheduled) {
      this.scheduled = true
      setImmediate(() => this.flush())
    }
  }

  private flush(): void {
    const batch = [...this.pending.values()]
    this.pending.clear()
    this.scheduled = false
    for (const item of batch) this.enqueue(() => this.deliver(item))
  }

  private enqueue(job: () => Promise<void>): void {
    this.chain = this.chain.then(job).catch((error) => console.error("store simulator: webhook delivery failed", error))
  }

  /** The payload of a delivery, or undefined when the resource is gone by now. */
  private payload(w: WebhookRecord, event: HookEvent): Json | undefined {
    const { resource, event: what } = topicParts(w.topic)
    if (resource === "action") return { action: event.hook, arg: event.arg }
    const id = Number(event.arg)
    if (what === "deleted") return { id }
    const r = this.render()
    switch (resource) {
      case "order": {
        const o = this.s.orderById.get(id)
        return o === undefined ? undefined : orderJson(this.s, o, r)
      }
      case "product": {
        const p = this.s.productById.get(id)
        const v = this.s.variationById.get(id)
        return p !== undefined ? productJson(this.s, p, r) : v !== undefined ? variationJson(this.s, v, r) : undefined
      }
      case "customer": {
        const c = this.s.customerById.get(id)
        return c === undefined ? undefined : customerJson(c, r)
      }
      default:
        return undefined
    }
  }

  private async deliver({ webhookId, event }: Pending): Promise<void> {
    const w = this.s.webhooks.byId.get(webhookId)
    // Paused, disabled, trashed or deleted in the meantime: WooCommerce checks again before delivering.
    if (w === undefined || w.status !== "active" || w.trashed) return
    const payload = this.payload(w, event)
    if (payload === undefined) return
    const body = JSON.stringify(payload)
    const { resource, event: what } = topicParts(w.topic)
    const id = this.s.ids.take("delivery")
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      "User-Agent": USER_AGENT,
      "X-Shop-Webhook-Source": `${this.render().apiUrl.replace(/\/wp-json\/.*$/, "")}/`,
      "X-Shop-Webhook-Topic": w.topic,
      "X-Shop-Webhook-Resource": resource,
      "X-Shop-Webhook-Event": what,
      "X-Shop-Webhook-Signature": signature(body, w.secret),
      "X-Shop-Webhook-ID": String(w.id),
      "X-Shop-Webhook-Delivery-ID": String(id),
    }
    const started = performance.now()
    const response = await post(w.deliveryUrl, headers, body)
    const delivery: DeliveryRecord = {
      id,
      webhookId: w.id,
      date: this.s.now(),
      duration: Math.round(performance.now() - started) / 1000,
      request: { url: w.deliveryUrl, method: "POST", headers, body },
      response,
    }
    this.s.webhooks.record(w, delivery)
  }

  private async ping(w: WebhookRecord): Promise<void> {
    await post(w.deliveryUrl, { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": USER_AGENT }, `webhook_id=${w.id}`)
  }
}

const post = async (url: string, headers: Record<string, string>, body: string): Promise<DeliveryRecord["response"]> => {
  try {
    const res = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) })
    return { code: res.status, message: res.statusText, headers: Object.fromEntries(res.headers), body: await res.text() }
  } catch (error) {
    return { code: 0, message: error instanceof Error ? error.message : String(error), headers: {}, body: "" }
  }
}
