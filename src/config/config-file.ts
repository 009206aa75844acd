import * as fs from "node:fs"
import * as path from "node:path"
import * as util from "node:util"
import { ConfigProvider, Data, Effect, Option } from "effect"

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
    entries.set(key, parseValue(line.slice(eq + 1)))
  }
  return entries
}

/**
 * As dotenv: a quoted value is kept whole (a `#` inside is data, e.g. in a password), an unquoted one
 * ends where whitespace then `#` starts a comment.
 */
const parseValue = (raw: string): string => {
  const quoted = /^\s*(['"])(.*?)\1\s*(?:#.*)?$/.exec(raw)
  return quoted ? quoted[2]! : raw.replace(/\s+#.*$/, "").trim()
}

const DEFAULT_FILE = "shopsync.env"

/** The config file could not be read; names the file, the OS reason and what to do. */
export class ConfigFileUnreadable extends Data.TaggedError("ConfigFileUnreadable")<{
  readonly path: string
  readonly reason: string
  readonly fix: string
}> {
  override get message() {
    return `cannot read the config file ${this.path} (${this.reason}); ${this.fix}`
  }
}

/** "ENOENT: no such file or directory", without the call and path Node appends to its message. */
const osReason = (e: NodeJS.ErrnoException): string => {
  const text = e.errno === undefined ? undefined : util.getSystemErrorMap().get(e.errno)?.[1]
  return e.code && text ? `${e.code}: ${text}` : e.message
}

/** The config file's text; None only when SHOPSYNC_CONFIG is unset and ./shopsync.env does not exist. */
const configFileText = Effect.suspend(() => {
  const explicit = process.env.SHOPSYNC_CONFIG || undefined
  const file = explicit ?? DEFAULT_FILE
  return Effect.try({ try: () => fs.readFileSync(file, "utf8"), catch: (e) => e as NodeJS.ErrnoException }).pipe(
    Effect.asSome,
    Effect.catchAll((e) =>
      explicit === undefined && e.code === "ENOENT"
        ? Effect.succeedNone
        : Effect.fail(
          new ConfigFileUnreadable({
            path: path.resolve(file),
            reason: osReason(e),
            fix: explicit === undefined
              ? `make ./${DEFAULT_FILE} readable by this user or remove it, or set SHOPSYNC_CONFIG to another KEY=VALUE file`
              : "set SHOPSYNC_CONFIG to a readable KEY=VALUE file, or unset it"
          })
        )
    )
  )
})

/** The provider every command runs under: environment, then the config file. */
export const configProvider = Effect.map(configFileText, (text) => {
  const env = ConfigProvider.fromEnv()
  return Option.match(text, {
    onNone: () => env,
    onSome: (t) => env.pipe(ConfigProvider.orElse(() => ConfigProvider.fromMap(parseEnvFile(t))))
  })
})
