import * as fs from "node:fs"
import { ConfigProvider, Effect } from "effect"

/**
 * Configuration comes from the environment first, then from an optional
 * KEY=VALUE file (SHOPSYNC_CONFIG or ./shopsync.env), so a cron line can stay short
 * while secrets live in a file readable only by the service user.
 */
export const parseEnvFile = (text: string): Map<string, string> => {
  const entries = new Map<string, string>()
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#")) continue
    const eq = line.indexOf("=")
    if (eq <= 0) continue
    const key = line.slice(0, eq).trim().replace(/^export\s+/, "")
    let value = line.slice(eq + 1).trim()
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1)
    entries.set(key, value)
  }
  return entries
}

const configFilePath = (): string | undefined => {
  const explicit = process.env.SHOPSYNC_CONFIG
  if (explicit) return explicit
  return fs.existsSync("shopsync.env") ? "shopsync.env" : undefined
}

/** The provider every command runs under: environment, then the config file. */
export const configProvider = Effect.sync(() => {
  const env = ConfigProvider.fromEnv()
  const path = configFilePath()
  if (path === undefined) return env
  const file = ConfigProvider.fromMap(parseEnvFile(fs.readFileSync(path, "utf8")))
  return env.pipe(ConfigProvider.orElse(() => file))
})
