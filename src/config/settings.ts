import { Config, Option, Redacted } from "effect"

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
  /** Requests in flight at once; long walks are split into this many slices walked together. */
  readonly concurrency: number
}

const apiUrl = Config.string("STORE_API_URL").pipe(
  Config.validate({
    message: "STORE_API_URL must be the store API root ending in /v3 (for example https://shop.example/wp-json/wc/v3)",
    validation: (s) => /^https?:\/\/.+\/v3\/?$/.test(s)
  }),
  Config.map((s) => s.replace(/\/$/, ""))
)

export const storeIdConfig = Config.string("STORE_ID").pipe(
  Config.withDefault("default"),
  Config.validate({ message: "STORE_ID must be 1-64 characters of letters, digits, '.', '_' or '-'", validation: (s) => /^[\w.-]{1,64}$/.test(s) })
)

export const storeSettingsConfig: Config.Config<StoreSettings> = Config.all({
  apiUrl,
  consumerKey: Config.redacted("STORE_CONSUMER_KEY"),
  consumerSecret: Config.redacted("STORE_CONSUMER_SECRET"),
  storeId: storeIdConfig,
  perPage: Config.integer("STORE_PER_PAGE").pipe(Config.withDefault(100)),
  settleSeconds: Config.integer("STORE_SETTLE_SECONDS").pipe(Config.withDefault(2)),
  maxAttempts: Config.integer("STORE_MAX_ATTEMPTS").pipe(Config.withDefault(8)),
  requestTimeoutMs: Config.integer("STORE_REQUEST_TIMEOUT_MS").pipe(Config.withDefault(60_000)),
  concurrency: Config.integer("STORE_CONCURRENCY").pipe(
    Config.withDefault(4),
    Config.validate({ message: "STORE_CONCURRENCY must be a whole number from 1 to 16", validation: (n) => n >= 1 && n <= 16 })
  )
})

/** DATABASE_URL, when set, names the warehouse; otherwise an embedded PostgreSQL is started. */
export const databaseUrlConfig: Config.Config<Option.Option<Redacted.Redacted<string>>> = Config.option(
  Config.redacted("DATABASE_URL")
)

/** Where and how to reach the marketing service (contact push); see src/marketing/config.ts for "not configured". */
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

const marketingBaseUrl = Config.string("MARKETING_BASE_URL").pipe(
  Config.map((s) => s.trim().replace(/\/+$/, "")),
  Config.validate({
    message: "MARKETING_BASE_URL must be the marketing service's root URL (for example https://marketing.example.com), without /api or /oauth/v2",
    validation: (s) => /^https?:\/\/[^\s/]+(\/\S*)?$/.test(s) && !/\/(api|oauth(\/v2)?)$/.test(s)
  })
)

const between = (name: string, fallback: number, min: number, max: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a whole number from ${min} to ${max}`, validation: (n) => n >= min && n <= max })
  )

export const marketingSettingsConfig: Config.Config<MarketingSettings> = Config.all({
  baseUrl: marketingBaseUrl,
  clientId: Config.redacted("MARKETING_CLIENT_ID"),
  clientSecret: Config.redacted("MARKETING_CLIENT_SECRET"),
  batchSize: between("MARKETING_BATCH_SIZE", 200, 1, 200),
  concurrency: between("MARKETING_CONCURRENCY", 2, 1, 8),
  maxAttempts: between("MARKETING_MAX_ATTEMPTS", 6, 1, 20),
  requestTimeoutMs: between("MARKETING_REQUEST_TIMEOUT_MS", 60_000, 1_000, 600_000),
  tokenMarginSeconds: between("MARKETING_TOKEN_MARGIN_SECONDS", 60, 0, 3600)
})
