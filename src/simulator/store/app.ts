// Request handling around the routes: faults first (they stand for the hosting in front of the shop), then the
// test hook, authentication, body parsing and routing. Every request is logged with the status it got.
// Requests to the storefront API (/wp-json/wc/store/...) skip the REST API's key authentication and go to the
// storefront handler, which is public like WooCommerce's Store API.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import { readBody } from "../http/body.ts"
import { HttpError } from "../http/errors.ts"
import type { FaultInjector } from "../http/faults.ts"
import { type Reply, writeReply } from "../http/reply.ts"
import type { Throttle } from "../http/throttle.ts"
import type { Params, Router } from "../http/router.ts"
import { cannotView, type StoreAuthenticator } from "./auth.ts"
import type { SimClock } from "./clock.ts"
import { noRoute, wcError } from "./rest/errors.ts"
import { ParamReader } from "./rest/params.ts"
import type { RenderContext } from "./rest/render.ts"
import { type RouteAvailability, underAny } from "./routes.ts"
import type { StoreState } from "./state.ts"

export const API_ROOT = "/wp-json/wc/v3"
/** The storefront (Store API) root; WooCommerce also serves it without the version segment. */
export const STORE_API_ROOT = "/wp-json/wc/store"

export type StorefrontHandler = (req: IncomingMessage, url: URL, path: string, bodyText: string) => Promise<Reply>

export interface RequestContext {
  method: string
  /** Path below the API root, e.g. /orders/12 */
  path: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
  /** The JSON body ({} without one). */
  body: Record<string, unknown>
  state: StoreState
  apiUrl: string
  /** Arguments from query and body, validated WordPress-style. */
  args(): ParamReader
  render(dp: number): RenderContext
}

export type Handler = (ctx: RequestContext, params: Params) => Reply

export interface RequestInfo {
  method: string
  path: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
}

export interface LoggedRequest {
  method: string
  url: string
  status: number
}

export interface AppOptions {
  router: Router<Handler>
  state: StoreState
  clock: SimClock
  auth: StoreAuthenticator
  routes: RouteAvailability
  faults: FaultInjector
  /** The host's rate limit and load-dependent latency on API requests, in front of the faults. */
  throttle?: Throttle | undefined
  onRequest: ((info: RequestInfo) => void | Promise<void>) | undefined
  log: LoggedRequest[]
  apiUrl: () => string
  storefront?: StorefrontHandler
}

const parseJsonBody = (text: string): Record<string, unknown> => {
  if (text.trim() === "") return {}
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  } catch {
    throw wcError(400, "rest_invalid_json", "Invalid JSON body passed.", { json_error_code: 4, json_error_message: "Syntax error" })
  }
}

/** The path below the storefront root (with or without /v1), or undefined outside it. */
const storefrontPath = (pathname: string): string | undefined => {
  const lower = pathname.toLowerCase()
  if (lower !== STORE_API_ROOT && !lower.startsWith(`${STORE_API_ROOT}/`)) return undefined
  const rest = pathname.slice(STORE_API_ROOT.length)
  return (/^\/v1(\/|$)/i.test(rest) ? rest.slice(3) : rest) || "/"
}

export const createRequestHandler = (app: AppOptions) => {
  const answer = async (req: IncomingMessage, url: URL, path: string | undefined): Promise<Reply> => {
    const method = req.method ?? "GET"
    try {
      await app.onRequest?.({ method, path: path ?? url.pathname, query: url.searchParams, headers: req.headers })
      const storePath = storefrontPath(url.pathname)
      if (storePath !== undefined && app.storefront !== undefined) return await app.storefront(req, url, storePath, await readBody(req))
      app.auth.check(req, url)
      const body = parseJsonBody(await readBody(req))
      const match = path === undefined || underAny(path, app.routes.disabled) ? undefined : app.router.match(method, path)
      if (match === undefined) throw noRoute()
      if (underAny(path!, app.routes.forbidden)) throw cannotView()
      const apiUrl = app.apiUrl()
      // Every route takes `context`; the reports narrow it further to view.
      const contextArg = ParamReader.of(url.searchParams, body)
      const context = contextArg.oneOf("context", ["view", "edit"], "view")
      contextArg.check()
      const ctx: RequestContext = {
        method,
        path: path!,
        query: url.searchParams,
        headers: req.headers,
        body,
        state: app.state,
        apiUrl,
        args: () => ParamReader.of(url.searchParams, body),
        render: (dp) => ({ apiUrl, dp, site: app.state.site, context }),
      }
      return match.handler(ctx, match.params)
    } catch (error) {
      if (error instanceof HttpError) return { status: error.status, body: error.body, headers: error.headers }
      console.error("store simulator: unexpected error", error)
      return { status: 500, body: { code: "internal_server_error", message: String(error), data: { status: 500 } } }
    }
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://simulator")
    const lower = url.pathname.toLowerCase()
    const path = lower === API_ROOT || lower.startsWith(`${API_ROOT}/`) ? url.pathname.slice(API_ROOT.length) || "/" : undefined
    const entry: LoggedRequest = { method: req.method ?? "GET", url: url.pathname + url.search, status: 0 }
    app.log.push(entry)
    const admission = path === undefined ? undefined : app.throttle?.admit(rowsAsked(path, url))
    res.once("close", () => admission?.release())
    const decision = admission?.reply === undefined ? app.faults.decide(path, retryKey(entry.method, url)) : { delayMs: 0, action: undefined }
    const run = async () => {
      const delayMs = decision.delayMs + (admission?.delayMs ?? 0)
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs))
      if (decision.action?.type === "drop") {
        req.socket.destroy()
        return
      }
      const reply = admission?.reply ?? decision.action?.reply ?? (await answer(req, url, path))
      entry.status = reply.status
      writeReply(res, reply, { Date: new Date(app.clock.now()).toUTCString(), ...admission?.headers })
    }
    run().catch((error) => {
      console.error("store simulator: failed to answer", error)
      res.destroy()
    })
  }
}

/** Rows a request asks for: a listing's per_page (WooCommerce's default 10), one for a route ending in an id. */
const rowsAsked = (path: string, url: URL) =>
  /\/\d+$/.test(path) ? 1 : Number(url.searchParams.get("per_page") ?? 10) || 10

/**
 * What identifies a request across its retries (for a fault rule's `maxInARow`): method, path and query without the
 * credentials, since an OAuth 1.0a retry carries a new nonce, timestamp and signature (and so a new URL) every time.
 */
const retryKey = (method: string, url: URL) => {
  const query = new URLSearchParams([...url.searchParams].filter(([name]) => !name.startsWith("oauth_") && name !== "consumer_key" && name !== "consumer_secret"))
  return `${method} ${url.pathname}?${query}`
}
