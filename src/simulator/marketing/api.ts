// The API under /api: what an authenticated request looks like to a resource handler, and the
// route table of every resource.
import { contactRoutes } from "./contacts.ts"
import { fieldRoutes } from "./fields.ts"
import { hookRoutes } from "./hooks.ts"
import type { Reply } from "../http/reply.ts"
import { Router, type Params as RouteParams } from "../http/router.ts"
import type { ResolvedOptions } from "./options.ts"
import type { Params } from "./php-params.ts"
import type { MarketingState } from "./state.ts"
import type { Principal } from "./tokens.ts"

export interface ApiRequest {
  method: string
  query: Params
  /** Parsed JSON or form body, without an `access_token` field. */
  body: unknown
  principal: Principal
  state: MarketingState
  options: ResolvedOptions
  baseUrl: string
}

export type ApiHandler = (req: ApiRequest, params: RouteParams) => Reply
/** A route below /api: `:id` segments match numeric ids. */
export type ApiRoute = readonly [method: string, path: string, handler: ApiHandler]

export const apiRouter = new Router<ApiHandler>()
for (const [method, path, handler] of [...contactRoutes, ...fieldRoutes, ...hookRoutes]) apiRouter.add(method, path, handler)
