import { Command, Options } from "@effect/cli"
import { Clock, Effect, Option } from "effect"
import { endsAtOption, untilOption } from "./until-option.js"

const port = Options.integer("port").pipe(Options.withPseudoName("PORT"), Options.withDescription("port to listen on (default: a free one)"), Options.optional)
const seed = Options.integer("seed").pipe(Options.withPseudoName("NUMBER"), Options.withDescription("generator seed: the same seed gives the same store (default: 1)"), Options.withDefault(1))
const orders = Options.integer("orders").pipe(Options.withPseudoName("COUNT"), Options.withDescription("number of generated orders (default: 2000)"), Options.withDefault(2000))
// As src/simulator/store/generate/generate.ts computes them when not given.
const customers = Options.integer("customers").pipe(Options.withPseudoName("COUNT"), Options.withDescription("number of generated customers (default: orders / 5, at least 10)"), Options.optional)
const products = Options.integer("products").pipe(Options.withPseudoName("COUNT"),
  Options.withDescription("number of generated products (default: orders / 200, kept between 12 and 150; 12 for 2000 orders)"),
  Options.optional
)
const timezone = Options.text("timezone").pipe(Options.withPseudoName("ZONE"),
  Options.withDescription("the store's IANA timezone (local dates, report days; default: America/New_York)"),
  Options.withDefault("America/New_York")
)
const faults = Options.text("faults").pipe(Options.withPseudoName("SPEC"),
  Options.withDescription('fault injection, e.g. "429:0.05,500:0.02,drop:0.01,latency:250ms" (kinds: 429 500 502 503 html5xx html404 empty5xx drop latency)'),
  Options.optional
)
const storeRateLimit = Options.float("rate-limit").pipe(Options.withPseudoName("RPS"),
  Options.withDescription("requests per second the host allows (a token bucket; 429 with Retry-After beyond it; default: no limit)"),
  Options.optional
)
const burst = Options.integer("burst").pipe(Options.withPseudoName("COUNT"),
  Options.withDescription("requests the rate limit lets through at once after a quiet spell (default: the rate)"),
  Options.optional
)
const rateLimitHeaders = Options.choice("rate-limit-headers", ["ratelimit", "x-ratelimit", "none"]).pipe(
  Options.withDescription("rate-limit headers on every answer: RateLimit-* (reset in seconds), X-RateLimit-* (reset a Unix time) or none; default: ratelimit"),
  Options.withDefault("ratelimit")
)
const latencyKnee = Options.text("latency-knee").pipe(Options.withPseudoName("BASE,KNEE,PER_EXTRA"),
  Options.withDescription('a latency that grows with load, e.g. "100ms,4,50ms": 100 ms a page of 100 rows (down to a fifth for one row), 50 ms more per request in flight beyond 4'),
  Options.optional
)
const until = untilOption(366)
const noStoreWideRefunds = Options.boolean("no-store-wide-refunds").pipe(
  Options.withDescription("answer GET /refunds with 404, like stores older than 9.0")
)

const prefixes = (name: string, description: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("PREFIXES"),
    Options.withDescription(description),
    Options.map((text) => text.split(",").map((p) => p.trim()).filter((p) => p !== "")),
    Options.withDefault([] as ReadonlyArray<string>)
  )
const disabledRoutes = prefixes("disabled-routes", 'route prefixes the store lacks, answered 404 rest_no_route, e.g. "/webhooks,/taxes" (an older version, a plugin)')
const forbiddenRoutes = prefixes("forbidden-routes", 'route prefixes the key may not read, answered 401 woocommerce_rest_cannot_view, e.g. "/settings,/system_status"')

/** Each simulator loads only when it is asked for: every other command starts without them (about 30 MB less). */
const storeSimulator = Effect.promise(() => import("../simulator/store/index.js"))
const marketingSimulator = Effect.promise(() => import("../simulator/marketing/index.js"))

/** "created from DAY to DAY" (store-local) of the orders' creation instants, so a user sees which dates the data covers. */
const createdSpan = (created: ReadonlyArray<number>, site: { local: (utc: number) => string }) =>
  created.length === 0
    ? ""
    : `created from ${site.local(created.reduce((a, b) => Math.min(a, b))).slice(0, 10)} to ${site.local(created.reduce((a, b) => Math.max(a, b))).slice(0, 10)}`

/** Holds a server open until the process is interrupted (Ctrl-C / SIGTERM). */
const serveUntilInterrupted = (close: () => Promise<void>) =>
  Effect.acquireRelease(Effect.void, () => Effect.promise(close)).pipe(Effect.zipRight(Effect.never), Effect.scoped)

const storeCommand = Command.make(
  "store",
  { port, seed, orders, customers, products, timezone, until, faults, rateLimit: storeRateLimit, burst, rateLimitHeaders, latencyKnee, noStoreWideRefunds, disabledRoutes, forbiddenRoutes },
  (o) =>
    Effect.gen(function*() {
      const { endOfUntil, parseFaultSpec, parseLatencyKnee, SiteTime, startStoreSimulator } = yield* storeSimulator
      const now = yield* Clock.currentTimeMillis
      const ends = yield* endsAtOption(o.until, (text) => endOfUntil(text, new SiteTime(o.timezone), now))
      const sim = yield* Effect.promise(() =>
        startStoreSimulator({
          ...(Option.isSome(o.port) ? { port: o.port.value } : {}),
          timezone: o.timezone,
          storeWideRefunds: !o.noStoreWideRefunds,
          routes: { disabled: o.disabledRoutes, forbidden: o.forbiddenRoutes },
          faults: Option.isSome(o.faults) ? parseFaultSpec(o.faults.value) : [],
          throttle: {
            ...(Option.isSome(o.rateLimit)
              ? { rateLimit: { rps: o.rateLimit.value, ...Option.match(o.burst, { onNone: () => ({}), onSome: (b) => ({ burst: b }) }), headers: o.rateLimitHeaders } }
              : {}),
            ...(Option.isSome(o.latencyKnee) ? { latency: parseLatencyKnee(o.latencyKnee.value) } : {})
          },
          data: {
            seed: o.seed,
            orders: o.orders,
            ...ends,
            ...(Option.isSome(o.customers) ? { customers: o.customers.value } : {}),
            ...(Option.isSome(o.products) ? { products: o.products.value } : {})
          }
        })
      )
      process.stdout.write(
        `store simulator listening\n  STORE_API_URL=${sim.url}\n  STORE_CONSUMER_KEY=ck_demo\n  STORE_CONSUMER_SECRET=cs_demo\n` +
          `(${o.orders} orders ${createdSpan(sim.state.orders.map((r) => r.created), new SiteTime(o.timezone))}, timezone ${o.timezone}; Ctrl-C to stop)\n`
      )
      yield* serveUntilInterrupted(() => sim.close())
    })
).pipe(Command.withDescription("Serves a generated store over the store API (root ending in /v3, HTTP Basic ck_demo/cs_demo) until interrupted."))

const clientId = Options.text("client-id").pipe(Options.withPseudoName("ID"), Options.withDescription("OAuth client id (default: mk_demo)"), Options.withDefault("mk_demo"))
const clientSecret = Options.text("client-secret").pipe(Options.withPseudoName("SECRET"), Options.withDescription("OAuth client secret (default: mk_secret)"), Options.withDefault("mk_secret"))
const expiresIn = Options.integer("expires-in").pipe(Options.withPseudoName("SECONDS"), Options.withDescription("access token lifetime in seconds (default: 3600)"), Options.withDefault(3600))
const basicAuth = Options.boolean("basic-auth").pipe(Options.withDescription("accept HTTP Basic (admin/admin) on the API, off by default as in the service"))
const hooksListShape = Options.choice("hooks-list-shape", ["map", "array"]).pipe(
  Options.withDescription("GET /api/hooks answer: a map keyed by id (the seed) or an array (the real service); default: map"),
  Options.withDefault("map")
)
const rateLimit = Options.integer("rate-limit").pipe(Options.withPseudoName("CALLS"), Options.withDescription("API calls allowed per hour (default: no limit)"), Options.optional)
const marketingFaults = Options.text("faults").pipe(Options.withPseudoName("SPEC"),
  Options.withDescription('fault injection, e.g. "429:0.05,503;times=2;path=/api/contacts,revoke;after=10" (kinds: 429 500 502 503 drop latency revoke)'),
  Options.optional
)

const marketingCommand = Command.make(
  "marketing",
  { port, clientId, clientSecret, expiresIn, basicAuth, hooksListShape, rateLimit, faults: marketingFaults },
  (o) =>
    Effect.gen(function*() {
      const { parseMarketingFaultSpec, startMarketingSimulator } = yield* marketingSimulator
      const sim = yield* Effect.promise(() =>
        startMarketingSimulator({
          ...(Option.isSome(o.port) ? { port: o.port.value } : {}),
          clients: [{ clientId: o.clientId, clientSecret: o.clientSecret, redirectUris: ["http://127.0.0.1/callback"] }],
          accessTokenTtlSeconds: o.expiresIn,
          basicAuth: o.basicAuth,
          hooksListShape: o.hooksListShape,
          ...(Option.isSome(o.rateLimit) ? { rateLimitPerHour: o.rateLimit.value } : {}),
          faults: Option.isSome(o.faults) ? parseMarketingFaultSpec(o.faults.value) : []
        })
      )
      process.stdout.write(
        `marketing simulator listening\n  MARKETING_BASE_URL=${sim.baseUrl}\n  MARKETING_CLIENT_ID=${o.clientId}\n  MARKETING_CLIENT_SECRET=${o.clientSecret}\n  MARKETING_ALLOW_HTTP=1\n` +
          `(API under /api, OAuth under /oauth/v2, tokens valid ${o.expiresIn} s; Ctrl-C to stop)\n`
      )
      yield* serveUntilInterrupted(() => sim.close())
    })
).pipe(Command.withDescription("Serves a marketing-automation service (OAuth 2.0, contacts, fields, webhooks) in memory until interrupted."))

export const simulateCommand = Command.make("simulate").pipe(
  Command.withDescription("Runs a simulator of a remote service for tests, demos and benchmarks."),
  Command.withSubcommands([storeCommand, marketingCommand])
)
