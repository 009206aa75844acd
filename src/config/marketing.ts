import { Config, Effect, Option } from "effect"
import { marketingSettingsConfig } from "./settings.js"

export const MARKETING_VARIABLES = ["MARKETING_BASE_URL", "MARKETING_CLIENT_ID", "MARKETING_CLIENT_SECRET"] as const

/**
 * The marketing settings when the push is configured, None when none of the three variables is set.
 * Setting only some of them is a mistake worth failing on (the error names the missing one), not a
 * reason to skip silently.
 */
export const marketingSettingsOption = Effect.gen(function*() {
  const present = yield* Effect.forEach(MARKETING_VARIABLES, (name) => Config.option(Config.string(name)))
  if (present.every(Option.isNone)) return Option.none()
  return Option.some(yield* marketingSettingsConfig)
})
