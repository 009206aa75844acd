// Simulator controls: what a program in another process (the benchmark) needs to know about the simulator itself,
// under /__simulator, outside the store API (no store serves this path, shopsync never reads it). Unauthenticated,
// read-only, loopback only like the simulator.
import type { IncomingMessage, ServerResponse } from "node:http"
import type { StoreState } from "./state.ts"
import type { WebhookDelivery } from "./webhooks/webhook-delivery.ts"

export const CONTROL_ROOT = "/__simulator"

export interface Controlled {
  readonly state: StoreState
  /** The delivery queue, once the server listens (it needs the server's URL). */
  readonly delivery: () => WebhookDelivery | undefined
}

/**
 * GET /__simulator/webhook-deliveries[?idle=1]: every webhook delivery made so far (id, webhook, topic, the
 * receiver's status code, 0 without an answer); with idle=1, answered once the delivery queue is empty.
 */
const deliveries = async (c: Controlled, url: URL) => {
  if (url.searchParams.get("idle") === "1") await c.delivery()?.idle()
  const topicOf = (id: number) => c.state.webhooks.byId.get(id)?.topic ?? ""
  return c.state.webhooks.deliveries.map((d) => ({ id: d.id, webhook_id: d.webhookId, topic: topicOf(d.webhookId), code: d.response.code }))
}

/** Wraps the simulator's handler: control paths are answered here, everything else goes to the store. */
export const withControls = (c: Controlled, handler: (req: IncomingMessage, res: ServerResponse) => void) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://simulator")
    if (!url.pathname.startsWith(`${CONTROL_ROOT}/`)) return handler(req, res)
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" })
      res.end(JSON.stringify(body))
    }
    if (req.method !== "GET" || url.pathname !== `${CONTROL_ROOT}/webhook-deliveries`) return reply(404, { error: "unknown simulator control" })
    deliveries(c, url).then((body) => reply(200, body), (error) => reply(500, { error: String(error) }))
  }
