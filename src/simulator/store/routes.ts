// Which routes a store serves and to whom: plugins and older versions remove routes (404 rest_no_route), and a key
// whose user lacks a capability is refused on some (401 woocommerce_rest_cannot_view, as WooCommerce answers many
// such keys). GET on the API root answers WooCommerce's namespace index: every route the store registered.
import type { Router } from "../http/router.ts"
import type { Handler } from "./app.ts"
import { json } from "../http/reply.ts"

export interface RouteAvailability {
  /** Route prefixes the store lacks, e.g. "/webhooks": the prefix and everything below it answer 404 rest_no_route. */
  disabled?: ReadonlyArray<string>
  /** Route prefixes the key may not read, e.g. "/settings": 401 woocommerce_rest_cannot_view. */
  forbidden?: ReadonlyArray<string>
}

const NAMESPACE = "wc/v3"

/** Whether `path` (below the API root) is one of `prefixes` or below one, case-insensitively like the router. */
export const underAny = (path: string, prefixes: ReadonlyArray<string> = []): boolean => {
  const p = path.toLowerCase().replace(/\/$/, "")
  return prefixes.some((prefix) => {
    const q = prefix.toLowerCase().replace(/\/$/, "")
    return p === q || p.startsWith(`${q}/`)
  })
}

/** A router pattern as WordPress writes the route: `/orders/:id` → `/wc/v3/orders/(?P<id>[\d]+)`. */
const routeKey = (pattern: string): string =>
  `/${NAMESPACE}${pattern.replace(/:([a-z_]+)/gi, "(?P<$1>[\\d]+)").replace(/\{([a-z_]+)\}/gi, "(?P<$1>[\\w-]+)")}`

const namespaceIndex = (router: Router<Handler>, disabled: ReadonlyArray<string>, apiUrl: string) => {
  const routes = new Map<string, { pattern: string; methods: string[] }>()
  for (const { method, pattern } of router.routes()) {
    if (pattern !== "" && underAny(pattern, disabled)) continue
    const key = routeKey(pattern)
    const route = routes.get(key) ?? { pattern, methods: [] }
    if (!route.methods.includes(method)) route.methods.push(method)
    routes.set(key, route)
  }
  const entries = [...routes].map(([key, { pattern, methods }]) => {
    const value: Record<string, unknown> = { namespace: NAMESPACE, methods, endpoints: methods.map((m) => ({ methods: [m], args: {} })) }
    // WordPress links the routes without parameters to themselves.
    if (!/[:{]/.test(pattern)) value._links = { self: [{ href: `${apiUrl}${pattern}` }] }
    return [key, value] as const
  })
  return { namespace: NAMESPACE, routes: Object.fromEntries(entries), _links: { up: [{ href: apiUrl.replace(/\/wc\/v3$/, "/") }] } }
}

/** GET on the API root: the namespace index, without the disabled routes. Register it after every other route. */
export const registerIndex = (router: Router<Handler>, disabled: ReadonlyArray<string>): void => {
  router.add("GET", "", (ctx) => json(200, namespaceIndex(router, disabled, ctx.apiUrl)))
}
