import * as fs from "node:fs"
import * as path from "node:path"
import * as util from "node:util"
import { ConfigProvider, Data, Effect, Option } from "effect"
import { diagnose, environmentWarnings } from "./diagnostics.js"

/** One KEY=VALUE line of a config file. */
export interface EnvLine {
  readonly key: string
  readonly value: string
  readonly line: number
}

/** A config file's assignments, and the numbers of the lines that are neither an assignment, a comment nor blank. */
export const parseEnvLines = (text: string): { readonly entries: ReadonlyArray<EnvLine>; readonly malformed: ReadonlyArray<number> } => {
  const entries: Array<EnvLine> = []
  const malformed: Array<number> = []
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim()
    if (line === "" || line.startsWith("#")) return
    const eq = line.indexOf("=")
    const key = eq < 0 ? "" : line.slice(0, eq).trim().replace(/^export\s+/, "")
    if (/^[A-Za-z_]\w*$/.test(key)) entries.push({ key, value: parseValue(line.slice(eq + 1)), line: index + 1 })
    else malformed.push(index + 1)
  })
  return { entries, malformed }
}

/**
 * Configuration comes from the environment first, then from an optional
 * KEY=VALUE file (SHOPSYNC_CONFIG or ./shopsync.env), so a cron line can stay short
 * while secrets live in a file readable only by the service user.
 */
export const parseEnvFile = (text: string): Map<string, string> =>
  new Map(parseEnvLines(text).entries.map((e) => [e.key, e.value]))

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

/** The config file's name and bytes; None only when SHOPSYNC_CONFIG is unset and ./shopsync.env does not exist. */
const readConfigFile = Effect.suspend(() => {
  const explicit = process.env.SHOPSYNC_CONFIG || undefined
  const file = explicit ?? DEFAULT_FILE
  return Effect.try({
    try: () => ({ path: path.resolve(file), text: fs.readFileSync(file, "utf8"), mode: fs.statSync(file).mode }),
    catch: (e) => e as NodeJS.ErrnoException
  }).pipe(
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

/** Lines of the config file that are not KEY=VALUE: reading around them could drop a setting the run depends on. */
export class ConfigFileMalformed extends Data.TaggedError("ConfigFileMalformed")<{ readonly problems: ReadonlyArray<string> }> {
  override get message() {
    return this.problems.join("; ")
  }
}

/** The file's entries, after its diagnostics: malformed lines fail, unknown keys and exposed secrets are warned about. */
const checkedEntries = (file: { readonly path: string; readonly text: string; readonly mode: number }) =>
  Effect.gen(function*() {
    const { entries, malformed } = parseEnvLines(file.text)
    const { errors, warnings } = diagnose({ path: file.path, entries, malformed, mode: file.mode })
    if (errors.length > 0) return yield* new ConfigFileMalformed({ problems: errors })
    yield* Effect.forEach(warnings, (warning) => Effect.logWarning(`config file: ${warning}`), { discard: true })
    return new Map(entries.map((e) => [e.key, e.value]))
  })

/**
 * The provider every command runs under: environment, then the config file. Variables named like shopsync's that are
 * none of its settings (STORE_CONCURENCY) are warned about, as the file's unknown keys are.
 */
export const configProvider = Effect.gen(function*() {
  yield* Effect.forEach(environmentWarnings(process.env), (warning) => Effect.logWarning(warning), { discard: true })
  const env = ConfigProvider.fromEnv()
  const file = yield* readConfigFile
  if (Option.isNone(file)) return env
  const entries = yield* checkedEntries(file.value)
  return env.pipe(ConfigProvider.orElse(() => ConfigProvider.fromMap(entries)))
})
