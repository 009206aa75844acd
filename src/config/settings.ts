import { Config, ConfigError, Either, Option, Redacted } from "effect"
import type { KeySource } from "../store-client/key-source.js"
import { inRange, named, wholeNumber } from "./setting.js"

// The settings of the long-running services (serve, the store registry, cluster workers) live beside these: re-exported
// here, so every setting is registered whichever module a command imports.
export * from "./service-settings.js"
export * from "./alert-settings.js"
export { ENVIRONMENT_ONLY, type Setting, SETTINGS } from "./setting.js"

/** Where and how to reach the store API. */
export interface StoreSettings {
  readonly apiUrl: string
  readonly consumerKey: Redacted.Redacted<string>
  readonly consumerSecret: Redacted.Redacted<string>
  readonly storeId: string
  /** Rows per page (the API allows 1..100). */
  readonly perPage: number
  /** Seconds below the store's clock that a run stops at, so rows still being committed are left for the next run. */
  readonly settleSeconds: number
  readonly maxAttempts: number
  readonly requestTimeoutMs: number
  /**
   * The most requests in flight at once (the adaptive limit finds how many the store sustains, up to this); long
   * walks are split into up to this many slices walked together.
   */
  readonly concurrency: number
  /** STORE_MAX_RPS: the most requests started per second (absent: no ceiling). */
  readonly maxRps?: number | undefined
  /** STORE_CONCURRENCY_MODE: adaptive (absent) finds the pace; fixed keeps `concurrency` in flight. */
  readonly concurrencyMode?: ConcurrencyMode | undefined
  /** STORE_AUTH: how the key travels (absent: auto). */
  readonly auth?: StoreAuth
  /** Where the address and key were given, for the fix messages name (absent: the STORE_* variables). */
  readonly source?: KeySource
}

/**
 * auto: HTTP Basic over HTTPS; over plain HTTP, OAuth 1.0a from the first request (Basic would send the secret in clear).
 * basic: HTTP Basic always (over plain HTTP only when chosen, with a warning every run). oauth1: OAuth 1.0a signatures always. query: key and secret as query parameters (HTTPS only).
 */
export const STORE_AUTH_CHOICES = ["auto", "basic", "oauth1", "query"] as const
export type StoreAuth = (typeof STORE_AUTH_CHOICES)[number]

/** adaptive: start low and find what the store sustains (429s, rate-limit headers, latency); fixed: always STORE_CONCURRENCY. */
export const CONCURRENCY_MODES = ["adaptive", "fixed"] as const
export type ConcurrencyMode = (typeof CONCURRENCY_MODES)[number]

/** A store API root: http(s), ending in /v3 (a trailing slash is dropped where it is read). */
export const isStoreApiRoot = (s: string): boolean => /^https?:\/\/.+\/v3\/?$/.test(s)

const apiUrl = named(
  "STORE_API_URL",
  Config.string().pipe(
    Config.validate({
      message: "STORE_API_URL must be the store API root ending in /v3 (for example https://shop.example/wp-json/wc/v3)",
      validation: isStoreApiRoot
    }),
    Config.map((s) => s.replace(/\/$/, ""))
  )
)

const storeAuth = named(
  "STORE_AUTH",
  Config.string().pipe(
    Config.map((s) => s.trim().toLowerCase()),
    Config.withDefault("auto"),
    Config.validate({
      message: `STORE_AUTH must be one of ${STORE_AUTH_CHOICES.join(", ")} (auto: HTTP Basic over HTTPS, OAuth 1.0a over plain HTTP)`,
      validation: (s): s is StoreAuth => (STORE_AUTH_CHOICES as ReadonlyArray<string>).includes(s)
    })
  )
)

/** Query-string keys end up in proxies' and servers' logs in clear over plain HTTP: refused there. */
export const queryAuthNeedsHttps = (s: Pick<StoreSettings, "auth" | "apiUrl">): boolean =>
  s.auth !== "query" || s.apiUrl.startsWith("https://")

export const storeIdConfig = named(
  "STORE_ID",
  Config.string().pipe(
    Config.withDefault("default"),
    Config.validate({ message: "STORE_ID must be 1-64 characters of letters, digits, '.', '_' or '-'", validation: (s) => /^[\w.-]{1,64}$/.test(s) })
  )
)

/** How a sync talks to any store (page size, timeouts, concurrency, auth): a registered store's sync reads these too. */
export type StoreTuning = Omit<StoreSettings, "apiUrl" | "consumerKey" | "consumerSecret" | "storeId" | "source">

export const storeTuningConfig: Config.Config<StoreTuning> = Config.all({
  perPage: wholeNumber("STORE_PER_PAGE", 100, { min: 1, max: 100, why: "the store API's limit" }),
  settleSeconds: wholeNumber("STORE_SETTLE_SECONDS", 2, { min: 0, max: 3600 }),
  maxAttempts: wholeNumber("STORE_MAX_ATTEMPTS", 8, { min: 1, max: 20 }),
  requestTimeoutMs: wholeNumber("STORE_REQUEST_TIMEOUT_MS", 60_000, { min: 1_000, max: 600_000 }),
  concurrency: wholeNumber("STORE_CONCURRENCY", 16, { min: 1, max: 16 }),
  maxRps: Config.option(named("STORE_MAX_RPS", Config.number().pipe(inRange("STORE_MAX_RPS", "a number of requests per second", { min: 0.01, max: 10_000 })))).pipe(
    Config.map(Option.getOrUndefined)
  ),
  concurrencyMode: named("STORE_CONCURRENCY_MODE", Config.string().pipe(
    Config.map((s) => s.trim().toLowerCase()),
    Config.withDefault("adaptive"),
    Config.validate({
      message: `STORE_CONCURRENCY_MODE must be one of ${CONCURRENCY_MODES.join(", ")} (adaptive: find the pace the store sustains up to STORE_CONCURRENCY; fixed: always STORE_CONCURRENCY)`,
      validation: (s): s is ConcurrencyMode => (CONCURRENCY_MODES as ReadonlyArray<string>).includes(s)
    })
  )),
  auth: storeAuth
})

export const storeSettingsConfig: Config.Config<StoreSettings> = Config.all({
  apiUrl,
  consumerKey: named("STORE_CONSUMER_KEY", Config.redacted()),
  consumerSecret: named("STORE_CONSUMER_SECRET", Config.redacted(), () => true),
  storeId: storeIdConfig,
  tuning: storeTuningConfig
}).pipe(
  Config.map(({ tuning, ...store }): StoreSettings => ({ ...store, ...tuning })),
  Config.validate({
    message: "STORE_AUTH=query sends the consumer key and secret in the URL and needs an https:// STORE_API_URL; " +
      "over plain HTTP use STORE_AUTH=auto or oauth1 (OAuth 1.0a signatures keep the secret out of the request)",
    validation: (s: StoreSettings) => queryAuthNeedsHttps(s)
  })
)

/** A year: longer than any sensible interval, short of a typo's millions. */
const MAX_HOURS = 8760

/** Hours between two passes over everything (0: every run); fractions allowed. */
const hours = (name: string, fallback: number) =>
  named(name, Config.number().pipe(Config.withDefault(fallback), inRange(name, "a number of hours", { min: 0, max: MAX_HOURS, why: "0: every run" })))

/** How often a sync reads everything of what the API cannot signal, and tries again what the store did not serve. */
export interface FullPassSettings {
  /** SHOPSYNC_CUSTOMERS_FULL_SCAN_HOURS: customers have no modified filter; between scans only the customers of changed orders are read. */
  readonly customersFullScanHours: number
  /** SHOPSYNC_CHILDREN_FULL_PASS_HOURS: every parent's children (notes, downloads, variations, terms, zone methods). */
  readonly childrenFullPassHours: number
  /** SHOPSYNC_CHILDREN_PASS_PERCENT: the share of a child stream's parents one run's full pass reads at most (after its first run, the pace that ends the pass in time may ask for fewer). */
  readonly childrenPassPercent: number
  /**
   * SHOPSYNC_CHILDREN_QUIET_DAYS: a full pass reads the children of the parents the store modified in this many days;
   * one pass in as many days reads every parent's (0: every pass does).
   */
  readonly childrenQuietDays: number
  /** SHOPSYNC_UNAVAILABLE_RECHECK_HOURS: a stream the store does not serve is tried again after this long. */
  readonly unavailableRecheckHours: number
  /** SHOPSYNC_DELETIONS_HOURS: forced deletions (announced nowhere) are looked for by count comparison this often. */
  readonly deletionsHours: number
  /** SHOPSYNC_VERIFY_HOURS: a sync reconciles the sales resources' ids and dates with the store's this often (0: every run). */
  readonly verifyHours: number
  /** SHOPSYNC_REFRESH_HOURS (`stream=hours,…`): overrides of how often the store's other resources are refreshed. */
  readonly refreshHours: Readonly<Record<string, number>>
}

/** `name=hours,…`, each hours from 0 to a year; the names are checked against the streams where they are used. */
const refreshHours = named("SHOPSYNC_REFRESH_HOURS", Config.string().pipe(
  Config.withDefault(""),
  Config.validate({
    message: "SHOPSYNC_REFRESH_HOURS must be stream=hours pairs separated by commas, e.g. webhooks=1,settings=24",
    validation: (s) => s.trim() === "" || s.split(",").every((pair) => /^\s*[a-z_]+\s*=\s*\d+(\.\d+)?\s*$/.test(pair))
  }),
  Config.validate({
    message: `SHOPSYNC_REFRESH_HOURS: each stream's hours must be from 0 to ${MAX_HOURS}`,
    validation: (s) => s.split(",").every((pair) => !(Number(pair.split("=")[1]) > MAX_HOURS))
  }),
  Config.map((s) => Object.fromEntries(s.split(",").filter((p) => p.trim() !== "").map((p) => p.split("=").map((x) => x.trim())).map(([k, v]) => [k!, Number(v)])))
))

export const fullPassConfig: Config.Config<FullPassSettings> = Config.all({
  customersFullScanHours: hours("SHOPSYNC_CUSTOMERS_FULL_SCAN_HOURS", 24),
  childrenFullPassHours: hours("SHOPSYNC_CHILDREN_FULL_PASS_HOURS", 24),
  childrenPassPercent: wholeNumber("SHOPSYNC_CHILDREN_PASS_PERCENT", 10, { min: 1, max: 100, why: "100: a whole pass in one run" }),
  childrenQuietDays: wholeNumber("SHOPSYNC_CHILDREN_QUIET_DAYS", 30, { min: 0, max: 3650, why: "0: every full pass reads every parent's children" }),
  unavailableRecheckHours: hours("SHOPSYNC_UNAVAILABLE_RECHECK_HOURS", 24),
  deletionsHours: hours("SHOPSYNC_DELETIONS_HOURS", 0),
  verifyHours: hours("SHOPSYNC_VERIFY_HOURS", 24),
  refreshHours
})

/** The embedded PostgreSQL used when DATABASE_URL is unset. */
export const embeddedConfig = Config.all({
  // Below Linux's ephemeral range (32768–60999), so an outgoing connection never holds the port at start.
  port: wholeNumber("SHOPSYNC_PG_PORT", 25432, { min: 1024, max: 65535, why: "an unprivileged port: PostgreSQL does not run as root" }),
  dataDir: Config.option(named("SHOPSYNC_DATA_DIR", Config.string()))
})

/**
 * SHOPSYNC_WAREHOUSE_RETRY_SECONDS: how long a run retries a lost warehouse connection (a restart, a failover, or a
 * warehouse not up yet as it starts), and takes its lock again on a new session, before it stops; the next run
 * resumes from the checkpoints either way.
 */
export const warehouseRetryConfig = wholeNumber("SHOPSYNC_WAREHOUSE_RETRY_SECONDS", 60, { min: 1, max: 3600 })

/** DATABASE_URL, when set, names the warehouse; otherwise an embedded PostgreSQL is started. */
export const databaseUrlConfig: Config.Config<Option.Option<Redacted.Redacted<string>>> = Config.option(
  named(
    "DATABASE_URL",
    Config.redacted().pipe(
      Config.validate({
        message: "DATABASE_URL must be a PostgreSQL URL: postgres://user:password@host:port/database",
        validation: (url) => URL.canParse(Redacted.value(url)) && /^postgres(ql)?:$/.test(new URL(Redacted.value(url)).protocol)
      })
    ),
    (url) => URL.canParse(url) && new URL(url).password !== ""
  )
)

/** Where and how to reach the marketing service (contact push); see src/config/marketing.ts for "not configured". */
export interface MarketingSettings {
  /** The service's root (the API is under /api, OAuth under /oauth/v2), without a trailing slash. */
  readonly baseUrl: string
  readonly clientId: Redacted.Redacted<string>
  readonly clientSecret: Redacted.Redacted<string>
  /** Contacts per POST /api/contacts/batch/new; the service refuses more than its api_batch_max_limit (200). */
  readonly batchSize: number
  /** Batches in flight at once (they share one access token). */
  readonly concurrency: number
  readonly maxAttempts: number
  readonly requestTimeoutMs: number
  /** A token is replaced this long before its expires_in runs out, so no request carries a token about to expire. */
  readonly tokenMarginSeconds: number
}

/** A marketing root, trimmed and without trailing slashes: what the checks below and `stores add` read. */
export const normalMarketingUrl = (s: string): string => s.trim().replace(/\/+$/, "")

/** What is wrong with a marketing root (`what` names where it came from), or undefined: two checks, so the message says which. */
export const marketingUrlProblem = (what: string, s: string): string | undefined =>
  !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(s)
    ? `${what} must be an http(s) URL without spaces: the marketing service's root (for example https://marketing.example.com)`
    : /\/(api|oauth(\/v2)?)$/.test(s)
    ? `${what} must be the marketing service's root URL, without /api or /oauth/v2 (shopsync adds them)`
    : undefined

/** The value is not shown (a URL can carry credentials). */
const marketingBaseUrl = named(
  "MARKETING_BASE_URL",
  Config.string().pipe(
    Config.map(normalMarketingUrl),
    Config.mapOrFail((s) => {
      const problem = marketingUrlProblem("MARKETING_BASE_URL", s)
      return problem === undefined ? Either.right(s) : Either.left(ConfigError.InvalidData([], problem))
    })
  )
)

/** How the push talks to any marketing service: a registered store's push reads these too. */
export type MarketingTuning = Omit<MarketingSettings, "baseUrl" | "clientId" | "clientSecret">

export const marketingTuningConfig: Config.Config<MarketingTuning> = Config.all({
  batchSize: wholeNumber("MARKETING_BATCH_SIZE", 200, { min: 1, max: 200 }),
  concurrency: wholeNumber("MARKETING_CONCURRENCY", 2, { min: 1, max: 8 }),
  maxAttempts: wholeNumber("MARKETING_MAX_ATTEMPTS", 6, { min: 1, max: 20 }),
  requestTimeoutMs: wholeNumber("MARKETING_REQUEST_TIMEOUT_MS", 60_000, { min: 1_000, max: 600_000 }),
  tokenMarginSeconds: wholeNumber("MARKETING_TOKEN_MARGIN_SECONDS", 60, { min: 0, max: 3600 })
})

/** MARKETING_ALLOW_HTTP=1: a plain-http marketing root is accepted (a simulator, a service on a trusted network). */
export const marketingAllowHttpConfig: Config.Config<boolean> = named(
  "MARKETING_ALLOW_HTTP",
  Config.string().pipe(
    Config.map((s) => s.trim()),
    Config.withDefault("0"),
    Config.validate({ message: "MARKETING_ALLOW_HTTP must be 0 or 1 (1: accept a plain http:// MARKETING_BASE_URL)", validation: (s) => s === "0" || s === "1" }),
    Config.map((s) => s === "1")
  )
)

/**
 * Over plain http the client secret (token requests) and the bearer tokens travel in clear: refused unless allowed.
 * Loopback is no exception: what listens there is not necessarily the service, and a setting says so explicitly.
 */
export const plainHttpMarketingProblem = (baseUrl: string, allowHttp: boolean): ConfigError.ConfigError | undefined =>
  allowHttp || !/^http:/i.test(baseUrl)
    ? undefined
    : ConfigError.InvalidData(["MARKETING_BASE_URL"],
      "MARKETING_BASE_URL uses http:, so the client secret and the access tokens would travel in clear: use the " +
        "service's https:// address, or set MARKETING_ALLOW_HTTP=1 to accept an unencrypted connection")

export const marketingSettingsConfig: Config.Config<MarketingSettings> = Config.all({
  baseUrl: marketingBaseUrl,
  clientId: named("MARKETING_CLIENT_ID", Config.redacted()),
  clientSecret: named("MARKETING_CLIENT_SECRET", Config.redacted(), () => true),
  tuning: marketingTuningConfig,
  allowHttp: marketingAllowHttpConfig
}).pipe(Config.mapOrFail(({ allowHttp, tuning, ...service }) => {
  const problem = plainHttpMarketingProblem(service.baseUrl, allowHttp)
  return problem === undefined ? Either.right<MarketingSettings>({ ...service, ...tuning }) : Either.left(problem)
}))

/**
 * SHOPSYNC_CONTACT_ROLES: the roles whose users are registered customers, each a marketing contact (the others,
 * staff such as administrator or shop_manager, only when their e-mail bills a counted order). Comma-separated
 * WordPress role names; default `customer,subscriber` (WooCommerce Subscriptions makes paying customers subscribers).
 */
export const contactRolesConfig: Config.Config<ReadonlyArray<string>> = named(
  "SHOPSYNC_CONTACT_ROLES",
  Config.string().pipe(
    Config.withDefault("customer,subscriber"),
    Config.map((s) => s.split(",").map((role) => role.trim()).filter((role) => role !== "")),
    Config.validate({
      message: "SHOPSYNC_CONTACT_ROLES must be a comma-separated list of WordPress role names (letters, digits, '_' or '-'), such as customer,subscriber",
      validation: (roles) => roles.length > 0 && roles.every((role) => /^[\w-]{1,64}$/.test(role))
    })
  )
)
