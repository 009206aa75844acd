import { Config, ConfigError, Either } from "effect"

/** A setting as the config file and the start-up check know it. */
export interface Setting {
  /** The setting, named, with its default and checks. */
  readonly config: Config.Config<unknown>
  /** Whether a value of it is a secret, which a config file readable by others would give away. */
  readonly secret: (value: string) => boolean
}

/**
 * Every setting shopsync reads, filled as this module defines them (each goes through `named`), so the config
 * file's key check and the start-up validation never miss one nor keep a second list.
 */
const registry = new Map<string, Setting>()
export const SETTINGS: ReadonlyMap<string, Setting> = registry

/** Read from the process environment only (a config file cannot set them: it is found through the first). */
export const ENVIRONMENT_ONLY = ["SHOPSYNC_CONFIG", "SHOPSYNC_DEBUG"] as const

const never = () => false

/**
 * A variable whose value is checked: `Config.validate` on `Config.string(name)` (or integer) fails with an empty path (the
 * error would not name the variable), so the checks run on an unnamed value nested under the name.
 */
export const named = <A>(name: string, value: Config.Config<A>, secret: (value: string) => boolean = never): Config.Config<A> => {
  const config = Config.nested(value, name)
  registry.set(name, { config, secret })
  return config
}

const rangeText = (range: { min: number; max: number; why?: string | undefined }) =>
  `from ${range.min} to ${range.max}${range.why ? ` (${range.why})` : ""}`

/** A number checked against its range; the message names the variable, the range and the value found. */
export const inRange = (name: string, kind: string, range: { min: number; max: number; why?: string | undefined }) =>
  Config.mapOrFail((n: number) =>
    n >= range.min && n <= range.max
      ? Either.right(n)
      : Either.left(ConfigError.InvalidData([], `${name} must be ${kind} ${rangeText(range)}, got ${n}`))
  )

/** An integer variable with a default and the range it must fall in. */
export const wholeNumber = (name: string, fallback: number, range: { min: number; max: number; why?: string }) =>
  named(name, Config.integer().pipe(Config.withDefault(fallback), inRange(name, "a whole number", range)))
