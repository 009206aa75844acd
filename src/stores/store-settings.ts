import { ConfigError, Effect, Option } from "effect"
import {
  marketingAllowHttpConfig,
  type MarketingSettings,
  marketingTuningConfig,
  plainHttpMarketingProblem,
  queryAuthNeedsHttps,
  type StoreSettings,
  storeTuningConfig
} from "../config/settings.js"
import type { RegisteredStore } from "./registry.js"

/**
 * The StoreSettings a registered store's sync runs with: where and who from the registry, how (page size, timeouts,
 * concurrency, STORE_AUTH) from the same settings a single-store sync reads, so both run the same code the same way.
 */
export const registeredStoreSettings = (store: RegisteredStore): Effect.Effect<StoreSettings, ConfigError.ConfigError> =>
  Effect.flatMap(storeTuningConfig, (tuning) => {
    const settings: StoreSettings = {
      apiUrl: store.apiUrl,
      consumerKey: store.consumerKey,
      consumerSecret: store.consumerSecret,
      storeId: store.storeId,
      ...tuning,
      source: { registered: store.storeId }
    }
    return queryAuthNeedsHttps(settings)
      ? Effect.succeed(settings)
      : Effect.fail(ConfigError.InvalidData(["STORE_AUTH"],
        `STORE_AUTH=query sends the consumer key and secret in the URL, and store ${store.storeId}'s API is plain http: use STORE_AUTH=auto or oauth1`))
  })

/** The marketing settings of a registered store's contact push, None when it has no marketing service. */
export const registeredMarketingSettings = (store: RegisteredStore): Effect.Effect<Option.Option<MarketingSettings>, ConfigError.ConfigError> =>
  Option.match(store.marketing, {
    onNone: () => Effect.succeedNone,
    onSome: (m) =>
      Effect.flatMap(Effect.all([marketingTuningConfig, marketingAllowHttpConfig]), ([tuning, allowHttp]) => {
        const problem = plainHttpMarketingProblem(m.url, allowHttp)
        return problem === undefined
          ? Effect.succeed(Option.some({ baseUrl: m.url, clientId: m.clientId, clientSecret: m.clientSecret, ...tuning }))
          : Effect.fail(problem)
      })
  })
