// The HTTP server: records every request, applies faults, then hands /oauth/v2 and /api requests to
// their routers and writes the reply.
import type { IncomingMessage, ServerResponse } from "node:http"
import { setTimeout as sleep } from "node:timers/promises"
import { readBody } from "../http/body.ts"
import { HttpError } from "../http/errors.ts"
import { writeReply, type Reply } from "../http/reply.ts"
import { listen } from "../http/server.ts"
import { apiRouter, type ApiRequest } from "./api.ts"
import { authenticate } from "./auth.ts"
import { apiError } from "./errors.ts"
import { FaultEngine, faultReply, type MarketingFaultRule } from "./faults.ts"
import type { MarketingSimulator, RequestRecord } from "./index.ts"
import { oauthRouter } from "./oauth.ts"
import type { ResolvedOptions } from "./options.ts"
import { parsePhpParams } from "./php-params.ts"
import { HourlyRateLimit, rateLimitHeaders } from "./rate-limit.ts"
import { MarketingState } from "./state.ts"
import { encodeJson } from "./wire-format.ts"

/** The limit a fault-injected 429 announces when no real rate limit is configured. */
const FAULT_RATE_LIMIT = 1000

const isForm = (req: IncomingMessage): boolean =>
  (req.headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")

const notFound = (path: string): HttpError => apiError(404, `Requested URL not found: ${path}`)

const errorReply = (error: unknown): Reply =>
  error instanceof HttpError
    ? { status: error.status, body: error.body, headers: error.headers }
    : { status: 500, body: apiError(500, "Simulator error.", [String(error)]).body }

/** JSON bodies go through encodeJson, which keeps PHP's key order and list/object choice. */
const toWire = (reply: Reply): Reply =>
  reply.text !== undefined ? reply : { ...reply, text: encodeJson(reply.body ?? null), contentType: "application/json" }

export const startServer = async (options: ResolvedOptions): Promise<MarketingSimulator> => {
  const state = new MarketingState(options.clock, options.accessTokenTtlSeconds, options.refreshTokenTtlSeconds)
  const requests: RequestRecord[] = []
  const rateLimit =
    options.rateLimitPerHour === null ? undefined : new HourlyRateLimit(options.rateLimitPerHour, options.clock)
  let faults = new FaultEngine(options.faults, options.faultSeed)
  let baseUrl = ""

  const oauth = async (req: IncomingMessage, url: URL): Promise<Reply> => {
    const body = await readBody(req)
    const found = oauthRouter.match(req.method ?? "GET", url.pathname.slice("/oauth/v2".length))
    if (!found) throw notFound(url.pathname)
    return found.handler({
      query: url.searchParams,
      form: new URLSearchParams(isForm(req) ? body : ""),
      headers: req.headers,
      state,
      options,
    })
  }

  const api = async (req: IncomingMessage, url: URL): Promise<Reply> => {
    if (!options.apiEnabled) {
      throw apiError(403, "API disabled. You need to enable the API in the API settings of Mautic's Configuration.")
    }
    const method = req.method ?? "GET"
    const raw = await readBody(req)
    let body: unknown = {}
    let bodyToken: string | undefined
    if (isForm(req)) {
      const form = parsePhpParams(new URLSearchParams(raw))
      const token = form["access_token"]
      delete form["access_token"]
      bodyToken = typeof token === "string" ? token : undefined
      body = form
    } else if (raw.trim() !== "") {
      try {
        body = JSON.parse(raw)
      } catch {
        throw apiError(400, "The request body is not valid JSON.")
      }
    }
    const query = parsePhpParams(url.searchParams)
    const queryToken = typeof query["access_token"] === "string" ? query["access_token"] : undefined
    delete query["access_token"]
    const principal = authenticate({ method, headers: req.headers, queryToken, bodyToken }, state, options)
    const limits = rateLimit?.hit()
    const found = apiRouter.match(method, url.pathname.slice("/api".length))
    if (!found) throw notFound(url.pathname)
    const ctx: ApiRequest = { method, query, body, principal, state, options, baseUrl }
    const reply = found.handler(ctx, found.params)
    return limits ? { ...reply, headers: { ...rateLimitHeaders(limits), ...reply.headers } } : reply
  }

  const dispatch = (req: IncomingMessage, url: URL): Promise<Reply> => {
    if (url.pathname.startsWith("/oauth/v2/")) return oauth(req, url)
    if (url.pathname.startsWith("/api/")) return api(req, url)
    return Promise.reject(notFound(url.pathname))
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", baseUrl)
    const record: RequestRecord = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      status: 0,
      hadTokenInUrl: url.searchParams.has("access_token"),
      userAgent: req.headers["user-agent"],
    }
    requests.push(record)

    const decision = faults.decide(url.pathname)
    if (decision.latencyMs > 0) await sleep(decision.latencyMs)
    if (decision.revoke) state.tokens.revokeAll()
    if (decision.failure?.kind === "drop") {
      // A reset connection: no status line at all (the record keeps status 0).
      req.socket.destroy()
      return
    }
    if (req.socket.destroyed) return
    const reply = decision.failure
      ? faultReply(decision.failure, options.rateLimitPerHour ?? FAULT_RATE_LIMIT, options.clock.now())
      : await dispatch(req, url).catch(errorReply)
    // Recorded before the bytes leave, so a test that has its answer always sees the status.
    record.status = reply.status
    writeReply(res, toWire(reply))
  }

  const server = await listen((req, res) => void handle(req, res), options.host, options.port)
  baseUrl = server.origin

  return {
    baseUrl,
    state,
    requests,
    setFaults(rules: MarketingFaultRule[]) {
      faults = new FaultEngine(rules, options.faultSeed)
    },
    revokeAllTokens() {
      state.tokens.revokeAll()
    },
    close: server.close,
  }
}
