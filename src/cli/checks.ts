import * as SqlClient from "@effect/sql/SqlClient"
import { type ConfigError, Data, Effect, Either, Layer, Option, Schema } from "effect"
import { type StoreSettings, storeSettingsConfig } from "../config/settings.js"
import { MARKETING_VARIABLES, marketingSettingsOption } from "../config/marketing.js"
import { HttpClientsLive } from "../http-client/clients.js"
import { marketingRetryPolicy } from "../marketing-client/http.js"
import { TokenService, TokenServiceLive } from "../marketing-client/token.js"
import { StoreClient, StoreClientLive } from "../store-client/client.js"
import type { StoreError } from "../store-client/errors.js"
import { STREAMS, type StreamName } from "../sync/catalogue.js"
import { unavailableReason } from "../sync/errors.js"
import { DatabaseLive } from "../warehouse/database.js"
import { sqlFolder } from "../warehouse/sql-files.js"
import { describe } from "./errors.js"

/** One check's verdict: ok; failed (with the fix); unavailable (a route the store does not serve: not a failure); skipped. */
export interface Check {
  readonly check: string
  readonly status: "ok" | "failed" | "unavailable" | "skipped"
  readonly detail: string
  readonly fix?: string
}

const ok = (check: string, detail: string): Check => ({ check, status: "ok", detail })
const failed = (check: string, detail: string, fix: string): Check => ({ check, status: "failed", detail, fix })
const skipped = (check: string, detail: string): Check => ({ check, status: "skipped", detail })

/** A check answers within seconds: two attempts, short timeouts (a sync retries far longer). */
const QUICK = { maxAttempts: 2, baseDelayMs: 200, maxDelayMs: 1_000 }

/** Parents whose first id the child routes are asked with (a child route needs one). */
interface Parents {
  readonly orders?: unknown
  readonly products?: unknown
  readonly customers?: unknown
  readonly product_attributes?: unknown
}

/** The one cheap request that tells whether the store serves a stream's route (undefined: no parent to ask with). */
const ROUTES: Readonly<Record<StreamName, (p: Parents) => string | undefined>> = {
  orders: () => "/orders",
  refunds: () => "/refunds",
  products: () => "/products",
  customers: () => "/customers",
  reports: () => "/reports/sales",
  variations: (p) => (p.products === undefined ? undefined : `/products/${p.products}/variations`),
  order_notes: (p) => (p.orders === undefined ? undefined : `/orders/${p.orders}/notes`),
  customer_downloads: (p) => (p.customers === undefined ? undefined : `/customers/${p.customers}/downloads`),
  tax_rates: () => "/taxes",
  tax_classes: () => "/taxes/classes",
  product_reviews: () => "/products/reviews",
  product_attributes: () => "/products/attributes",
  attribute_terms: (p) => (p.product_attributes === undefined ? undefined : `/products/attributes/${p.product_attributes}/terms`),
  product_categories: () => "/products/categories",
  shipping_classes: () => "/products/shipping_classes",
  shipping_zones: () => "/shipping/zones",
  // Zone 0 ("locations not covered by your other zones") exists on every store.
  shipping_zone_methods: () => "/shipping/zones/0/methods",
  settings: () => "/settings",
  reference_data: () => "/data",
  system_status_tools: () => "/system_status/tools",
  webhooks: () => "/webhooks",
  report_top_sellers: () => "/reports/top_sellers",
  report_totals: () => "/reports/orders/totals",
  store_profile: () => "/data/currencies/current"
}

const PAGED = new Set(["/orders", "/refunds", "/products", "/customers", "/taxes", "/products/reviews", "/products/categories", "/products/shipping_classes", "/webhooks"])

const firstId = (body: unknown): unknown =>
  Array.isArray(body) && typeof body[0] === "object" && body[0] !== null ? (body[0] as { id?: unknown }).id : undefined

/** GET a route once (per_page=1 where it pages); its body's first id. */
const probe = (path: string) =>
  Effect.flatMap(StoreClient, (store) => store.get(path, PAGED.has(path) ? { per_page: 1 } : {}, Schema.Unknown)).pipe(Effect.map(firstId))

/** Which check the first request's failure fails, and how to fix it. */
const storeFailure = (e: StoreError): Check => {
  switch (e._tag) {
    case "StoreUnreachable":
      return failed("store.reachable", e.message, "check STORE_API_URL (host and port) and that this machine can reach it (DNS, firewall, proxy)")
    case "StoreTlsFailed":
      return failed("store.tls", e.message, e.problem === "speaks-https"
        ? "use the store's https:// address in STORE_API_URL"
        : "fix the store's certificate or trust its authority with NODE_EXTRA_CA_CERTS, or correct the https:// address")
    case "StoreAuthFailed":
      return failed("store.credentials", e.message, "set STORE_CONSUMER_KEY and STORE_CONSUMER_SECRET to a key with Read access (WooCommerce → Settings → Advanced → REST API)")
    case "StoreNotApi":
    case "StoreRedirected":
      return failed("store.api", e.message, "set STORE_API_URL to the store's API root, ending in /wp-json/wc/v3")
    default:
      return failed("store.api", e.message, "check STORE_API_URL: the API root, ending in /wp-json/wc/v3")
  }
}

/** Each stream's route: answers, not served by the store (404 rest_no_route, or 401/403 for this key), or failing. */
const routeChecks = (parents: Parents) =>
  Effect.forEach(STREAMS, (name) => {
    const path = ROUTES[name](parents)
    const check = `store.route.${name}`
    if (path === undefined) return Effect.succeed(skipped(check, "no parent to ask with (the store has none yet)"))
    return probe(path).pipe(
      Effect.as(ok(check, `GET ${path} answers`)),
      Effect.catchAll((e) => {
        const reason = unavailableReason(e)
        return Effect.succeed<Check>(reason === undefined
          ? failed(check, e.message, "see the store's logs; `sync` would fail this stream")
          : { check, status: "unavailable", detail: `${reason}: \`sync\` skips this stream` })
      })
    )
  }, { concurrency: 4 })

/** The store: reachable, TLS, the key accepted (GET /orders), then what its API offers, one request per stream. */
export const storeChecks = (settings: StoreSettings) =>
  Effect.gen(function*() {
    const first = yield* Effect.either(probe("/orders"))
    if (Either.isLeft(first)) return [storeFailure(first.left)]
    const https = settings.apiUrl.startsWith("https://")
    const parents: Parents = {
      orders: first.right,
      ...Object.fromEntries(yield* Effect.forEach(["products", "customers", "product_attributes"] as const, (name) =>
        Effect.map(Effect.option(probe(ROUTES[name]({})!)), (id) => [name, Option.getOrUndefined(id)] as const)))
    }
    return [
      ok("store.reachable", `${settings.apiUrl} answers`),
      https ? ok("store.tls", "the certificate is trusted") : skipped("store.tls", "plain http://: the key travels unencrypted (use https:// in production)"),
      ok("store.credentials", "the consumer key is accepted (GET /orders answered)"),
      ...(yield* routeChecks(parents))
    ]
  }).pipe(Effect.provide(StoreClientLive(settings, { ...QUICK, timeoutMs: Math.min(settings.requestTimeoutMs, 15_000) })), Effect.provide(HttpClientsLive))

class Rollback extends Data.TaggedError("Rollback")<{}> {}

/** The warehouse: connects, its migration level, and whether this role may write (a row inserted, rolled back). */
export const warehouseChecks = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [server] = yield* sql<{ version: string; user: string; db: string }>`
    SELECT current_setting('server_version') AS version, current_user AS user, current_database() AS db`
  const known = sqlFolder("migrations").map((m) => m.name)
  const [table] = yield* sql<{ migrations: boolean; runs: boolean }>`
    SELECT to_regclass('public.shopsync_migrations') IS NOT NULL AS migrations, to_regclass('sync.runs') IS NOT NULL AS runs`
  const applied = table!.migrations ? (yield* sql<{ version: string }>`SELECT version FROM public.shopsync_migrations`).map((r) => r.version) : []
  const pending = known.filter((m) => !applied.includes(m))
  const write = table!.runs
    ? sql.withTransaction(Effect.zipRight(sql`INSERT INTO sync.runs (store_id, command, streams) VALUES ('shopsync-check', 'check', '{}')`, new Rollback()))
    : sql`SELECT has_database_privilege(current_database(), 'CREATE') AS ok`.pipe(
      Effect.flatMap((rows) => (rows[0]?.["ok"] === true ? new Rollback() : Effect.fail(new Error(`role ${server!.user} may not create schemas in ${server!.db}`)))))
  const wrote = yield* Effect.either(write)
  return [
    ok("warehouse.connect", `PostgreSQL ${server!.version}, database ${server!.db} as ${server!.user}`),
    ok("warehouse.migrations", pending.length === 0
      ? `up to date (${known.at(-1)})`
      : `${pending.length} of ${known.length} migrations to apply (${pending.join(", ")}): the next command applies them`),
    Either.isLeft(wrote) && wrote.left instanceof Rollback
      ? ok("warehouse.write", "this role may write (a test row was inserted and rolled back)")
      : failed("warehouse.write", Either.isLeft(wrote) ? describe(wrote.left) : "unexpected", "grant the role of DATABASE_URL the right to create schemas and write their tables")
  ]
}).pipe(
  Effect.provide(DatabaseLive),
  Effect.catchAll((e) => Effect.succeed([failed("warehouse.connect", describe(e), "check DATABASE_URL (or unset it to use the embedded warehouse)")]))
)

/** The fix for a marketing configuration error: a refused plain-http root has its own. */
const marketingConfigFix = (error: ConfigError.ConfigError) =>
  String(error).includes("MARKETING_ALLOW_HTTP")
    ? "use the service's https:// address in MARKETING_BASE_URL, or set MARKETING_ALLOW_HTTP=1 to accept an unencrypted connection"
    : "set all three MARKETING_ variables, or none"

/** The marketing service, when configured: a token obtained with the client credentials. */
export const marketingChecks = Effect.gen(function*() {
  const configured = yield* Effect.either(marketingSettingsOption)
  if (Either.isLeft(configured)) return [failed("marketing.config", describe(configured.left), marketingConfigFix(configured.left))]
  if (Option.isNone(configured.right)) {
    return [skipped("marketing.token", `not configured (${MARKETING_VARIABLES.join(", ")} unset): \`sync\` pushes no contacts`)]
  }
  const settings = configured.right.value
  const policy = { ...marketingRetryPolicy(settings), ...QUICK, timeoutMs: Math.min(settings.requestTimeoutMs, 15_000), maxServerWaitMs: 5_000 }
  return yield* Effect.flatMap(TokenService, (tokens) => tokens.get).pipe(
    Effect.as([ok("marketing.token", `a token was obtained from ${settings.baseUrl}`)]),
    Effect.catchAll((e) =>
      Effect.succeed([failed("marketing.token", describe(e), "check MARKETING_BASE_URL, MARKETING_CLIENT_ID and MARKETING_CLIENT_SECRET (an API client with client credentials)")])),
    Effect.provide(TokenServiceLive(settings, policy).pipe(Layer.provide(HttpClientsLive)))
  )
})

/** The store's checks, or one failed check saying which setting is wrong. */
export const storeChecksConfigured = Effect.either(storeSettingsConfig).pipe(
  Effect.flatMap((settings) =>
    Either.isLeft(settings)
      ? Effect.succeed([failed("store.config", describe(settings.left), "set STORE_API_URL, STORE_CONSUMER_KEY and STORE_CONSUMER_SECRET")])
      : storeChecks(settings.right))
)
