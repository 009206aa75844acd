import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { createServer } from "node:http"
import { Context, Layer } from "effect"
import {
  LISTENER_BODY_BUDGET_BYTES,
  LISTENER_HEADERS_TIMEOUT_MS,
  LISTENER_MAX_CONNECTIONS,
  LISTENER_REQUEST_TIMEOUT_MS,
  LISTENER_TIMEOUT_CHECK_MS
} from "../config/listener-limits.js"

/**
 * The body bytes buffered across requests before their signatures are checked. `take` and `give` are plain
 * functions, not effects: they are called from the request stream's `data` events, one chunk at a time.
 */
export class BodyBudget extends Context.Tag("BodyBudget")<BodyBudget, {
  /** Reserves `bytes` if they fit in what is left; false (nothing reserved) when they do not. */
  readonly take: (bytes: number) => boolean
  readonly give: (bytes: number) => void
}>() {}

export const BodyBudgetLive = (bytes: number) =>
  Layer.sync(BodyBudget, () => {
    let free = bytes
    return {
      take: (n) => n <= free && ((free -= n), true),
      give: (n) => void (free += n)
    }
  })

/**
 * An HTTP server of `serve` and `worker` with the listener's limits (src/config/listener-limits.ts): header and
 * request timeouts of seconds and a cap on open connections. The admin listener is this alone.
 */
export const limitedServerLayer = (address: { readonly host: string; readonly port: number }) =>
  NodeHttpServer.layer(() => {
    const server = createServer({
      headersTimeout: LISTENER_HEADERS_TIMEOUT_MS,
      requestTimeout: LISTENER_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: LISTENER_TIMEOUT_CHECK_MS
    })
    server.maxConnections = LISTENER_MAX_CONNECTIONS
    return server
  }, address)

/** The webhook listener: a limited server and the body budget its intake draws on. */
export const listenerLayer = (address: { readonly host: string; readonly port: number }) =>
  Layer.merge(limitedServerLayer(address), BodyBudgetLive(LISTENER_BODY_BUDGET_BYTES))
