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
  requestTimeoutMs: Config.integer("STORE_REQUEST_TIMEOUT_MS").pipe(Config.withDefault(60_000))
})

/** DATABASE_URL, when set, names the warehouse; otherwise an embedded PostgreSQL is started. */
export const databaseUrlConfig: Config.Config<Option.Option<Redacted.Redacted<string>>> = Config.option(
  Config.redacted("DATABASE_URL")
)
