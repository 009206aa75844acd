import { Config, type ConfigError, Effect } from "effect"
import { marketingSettingsOption } from "../config/marketing.js"
import { adminSettingsConfig, alertSettingsConfig, fullPassConfig, marketingSettingsConfig, runnerSettingsConfig, serveSettingsConfig, SETTINGS, storeIdConfig, storeSettingsConfig } from "../config/settings.js"

/** Every setting that has a value, checked (one error naming them all): a wrong one is wrong whatever the command. */
const everySetValue = Config.all([...SETTINGS.values()].map((setting) => Config.option(setting.config)))

/**
 * What each command reads before it may start: checked first, so a missing or wrong setting stops it before it starts
 * the warehouse (initdb) or the sync, not after. Commands not listed (the simulators, `check`, which reports on the
 * configuration itself) check their settings as they read them.
 */
const NEEDS: Readonly<Record<string, ReadonlyArray<Effect.Effect<unknown, ConfigError.ConfigError>>>> = {
  sync: [storeSettingsConfig, fullPassConfig, marketingSettingsOption, alertSettingsConfig],
  backfill: [storeSettingsConfig, fullPassConfig, alertSettingsConfig],
  verify: [storeSettingsConfig],
  resync: [storeSettingsConfig],
  push: [marketingSettingsConfig, storeIdConfig],
  status: [storeIdConfig],
  migrate: [],
  demo: [],
  "marketing-hooks": [marketingSettingsConfig],
  serve: [storeSettingsConfig, fullPassConfig, marketingSettingsOption, serveSettingsConfig, adminSettingsConfig, alertSettingsConfig],
  "store-hooks": [storeSettingsConfig],
  // A registered store's sync reads the STORE_*/MARKETING_* tuning (page size, timeouts…) and the full passes as it runs.
  stores: [],
  worker: [runnerSettingsConfig, fullPassConfig, adminSettingsConfig, alertSettingsConfig],
  warehouse: []
}

/** The settings `command` (the first word after shopsync) needs, each set value valid; nothing for other commands. */
export const preflight = (command: string | undefined): Effect.Effect<void, ConfigError.ConfigError> => {
  const needs = command === undefined ? undefined : NEEDS[command]
  if (needs === undefined) return Effect.void
  return Effect.zipRight(everySetValue, Effect.all(needs, { discard: true }))
}
