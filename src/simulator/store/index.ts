// The store simulator: a WooCommerce-REST-v3-like API over plain node:http on loopback, backed by live
// in-memory state that tests can read and change between (or during) requests.
import { FaultInjector, type FaultRule } from "../http/faults.ts"
import { Router } from "../http/router.ts"
import { listen } from "../http/server.ts"
import { Throttle, type ThrottleOptions } from "../http/throttle.ts"
import { StoreAuthenticator, type StoreAuthOptions } from "./auth.ts"
import { API_ROOT, STORE_API_ROOT, type Handler, type LoggedRequest, type RequestInfo, createRequestHandler } from "./app.ts"
import { registerAttributes } from "./taxonomy/attributes.ts"
import { registerCategories } from "./taxonomy/categories.ts"
import { type SimClock, manualClock, realClock } from "./clock.ts"
import { registerCustomers } from "./customers/customers.ts"
import { registerData } from "./settings/data.ts"
import { errorBodyFor } from "./rest/errors.ts"
import { type GenerateOptions, generate } from "./generate/generate.ts"
import type { StoreData } from "./model.ts"
import { registerNotes } from "./orders/notes.ts"
import { registerOrderActions } from "./orders/order-actions.ts"
import { registerOrders } from "./orders/orders.ts"
import { registerProducts } from "./products/products.ts"
import { registerRefunds } from "./orders/refunds.ts"
import { registerReports } from "./reports/reports.ts"
import { registerReviews } from "./products/reviews.ts"
import { CHECKOUT_RATE_LIMIT_SETTING } from "./settings/settings-catalog.ts"
import { registerSettings } from "./settings/settings.ts"
import { registerShippingClasses } from "./taxonomy/shipping-classes.ts"
import { registerShippingZones } from "./shipping/shipping-zones.ts"
import { registerIndex, type RouteAvailability } from "./routes.ts"
import { StoreState } from "./state.ts"
import type { StorefrontRateLimitOptions } from "./storefront/storefront-limit.ts"
import { createStorefront } from "./storefront/storefront.ts"
import { registerSystemTools } from "./settings/system-tools.ts"
import { registerTaxes } from "./taxes/taxes.ts"
import { registerVariations } from "./products/variations.ts"
import { WebhookDelivery } from "./webhooks/webhook-delivery.ts"
import { registerWebhooks } from "./webhooks/webhooks.ts"
import { withControls } from "./control.ts"

export type { FaultKind, FaultRule } from "../http/faults.ts"
export type { LatencyKneeOptions, RateLimitHeaders, RateLimitOptions, ThrottleOptions } from "../http/throttle.ts"
export type { StoreAuthOptions } from "./auth.ts"
export type { RouteAvailability } from "./routes.ts"
export type { SimClock } from "./clock.ts"
export type { GenerateOptions } from "./generate/generate.ts"
export type { StoreData } from "./model.ts"
export type { CustomerInput, OrderInput, RefundInput } from "./input.ts"
export type { StorefrontRateLimitOptions } from "./storefront/storefront-limit.ts"
export type { DeliveryRecord, WebhookRecord } from "./webhooks/webhook-store.ts"
export type { ProductInput, VariationInput } from "./products/product-input.ts"
export { StoreState } from "./state.ts"
export { generate } from "./generate/generate.ts"
export { type DailyNetSalesRow, dailyNetSales } from "./reports/reference.ts"
export { parseFaultSpec, parseLatencyKnee } from "./main.ts"
export { endOfUntil, SiteTime } from "./dates.ts"
export { manualClock, realClock }

export interface StoreSimulatorOptions {
  /** Default "127.0.0.1". */
  host?: string
  /** Default 0: a free port. */
  port?: number
  /** Default "ck_demo". */
  consumerKey?: string
  /** Default "cs_demo". */
  consumerSecret?: string
  /** IANA site timezone; default "America/New_York". */
  timezone?: string
  /** The server's "now": write dates and the HTTP Date header. Default realClock(). */
  clock?: SimClock
  /** Generated (deterministic) or given data; default: generated with seed 1 and small sizes. */
  data?: GenerateOptions | StoreData
  /**
   * Seeds the order of rows that tie on a list's sort key (a fresh shuffle per list request, like MariaDB's);
   * default: the generated data's seed, or 1 for given data.
   */
  seed?: number
  /** Default true; false answers GET /refunds with 404 rest_no_route, like stores before WooCommerce 9.0. */
  storeWideRefunds?: boolean
  /** Where orders live (StateOptions.orderStorage): `posts` trashes an order's refunds with it. Default `hpos`. */
  orderStorage?: "hpos" | "posts"
  faults?: FaultRule[]
  /**
   * The host's load limits on API requests, in front of the faults: a token-bucket rate limit (429 with Retry-After
   * and rate-limit headers) and a latency that grows with the requests in flight beyond a knee. Default: neither.
   */
  throttle?: ThrottleOptions
  /** Called before each response is computed (after fault decisions); `path` is below the API root. */
  onRequest?: (info: RequestInfo) => void | Promise<void>
  /** The storefront API's rate limiter (seed part 2 §8); off unless `enabled`. */
  storefrontRateLimit?: StorefrontRateLimitOptions
  /**
   * How strictly keys are read (default: Basic and query keys over any transport). OAuth 1.0a signatures are
   * always verified, timestamp and nonce included, as WooCommerce does over any transport.
   */
  auth?: StoreAuthOptions
  /** Routes the store lacks or the key may not read (default: every route, for everyone). */
  routes?: RouteAvailability
  /** The advanced feature limiting storefront checkout to 3 requests per 60 s (the setting of the same name); default false. */
  checkoutRateLimit?: boolean
}

export interface StoreSimulator {
  /** API root, e.g. http://127.0.0.1:PORT/wp-json/wc/v3 */
  readonly url: string
  /** Storefront API root, e.g. http://127.0.0.1:PORT/wp-json/wc/store/v1 */
  readonly storefrontUrl: string
  readonly state: StoreState
  /** Every request in arrival order (url = path + query); status 0 for a dropped connection. */
  readonly requests: ReadonlyArray<LoggedRequest>
  /** With a throttle: the API requests in flight as each admitted one arrived (itself included), in arrival order. */
  readonly inFlightAtArrival: ReadonlyArray<number>
  setFaults(rules: FaultRule[]): void
  /** Resolves once every webhook delivery queued so far has been made and logged. */
  webhooksIdle(): Promise<void>
  close(): Promise<void>
}

const DEFAULT_DATA: GenerateOptions = { seed: 1, orders: 600, customers: 120, products: 24 }

const isGenerateOptions = (data: GenerateOptions | StoreData): data is GenerateOptions => "seed" in data

export const startStoreSimulator = async (options: StoreSimulatorOptions = {}): Promise<StoreSimulator> => {
  const timezone = options.timezone ?? "America/New_York"
  const clock = options.clock ?? realClock()
  const source = options.data ?? DEFAULT_DATA
  const generated = isGenerateOptions(source)
  const seed = options.seed ?? (generated ? source.seed : 1)
  const state = new StoreState(generated ? generate(source, timezone) : source, { clock, timezone, seed, orderStorage: options.orderStorage })

  const router = new Router<Handler>()
  registerOrders(router)
  registerRefunds(router, options.storeWideRefunds ?? true)
  registerCustomers(router)
  registerProducts(router)
  registerVariations(router)
  registerReports(router)
  registerOrderActions(router)
  registerNotes(router)
  registerAttributes(router)
  registerCategories(router)
  registerShippingClasses(router)
  registerReviews(router)
  registerTaxes(router)
  registerData(router)
  registerSettings(router)
  registerShippingZones(router)
  registerSystemTools(router)
  registerWebhooks(router)
  registerIndex(router, options.routes?.disabled ?? [])
  if (options.checkoutRateLimit === true) state.settings.set("advanced", CHECKOUT_RATE_LIMIT_SETTING, "yes")

  const faults = new FaultInjector(options.faults ?? [], { errorBody: errorBodyFor, nowMs: () => clock.now() })
  const requests: LoggedRequest[] = []
  const throttle = options.throttle === undefined ? undefined : new Throttle(options.throttle, { nowMs: () => performance.now(), epochMs: () => clock.now() })
  let url = ""
  let delivery: WebhookDelivery | undefined
  const server = await listen(
    withControls({ state, delivery: () => delivery }, createRequestHandler({
      router,
      state,
      clock,
      auth: new StoreAuthenticator(options.consumerKey ?? "ck_demo", options.consumerSecret ?? "cs_demo", clock, options.auth),
      routes: options.routes ?? {},
      faults,
      throttle,
      onRequest: options.onRequest,
      log: requests,
      apiUrl: () => url,
      storefront: createStorefront(state, options.storefrontRateLimit ?? {}),
    })),
    options.host ?? "127.0.0.1",
    options.port ?? 0,
  )
  url = `${server.origin}${API_ROOT}`
  const hooks = new WebhookDelivery(state, () => ({ apiUrl: url, dp: 2, site: state.site, context: "view" }))
  delivery = hooks
  return {
    url,
    storefrontUrl: `${server.origin}${STORE_API_ROOT}/v1`,
    state,
    requests,
    inFlightAtArrival: throttle?.inFlightAtArrival ?? [],
    setFaults: (rules) => faults.setRules(rules),
    webhooksIdle: () => hooks.idle(),
    close: async () => {
      hooks.close()
      await server.close()
    },
  }
}
