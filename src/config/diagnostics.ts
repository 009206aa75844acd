import { closest } from "./did-you-mean.js"
import type { EnvLine } from "./config-file.js"
import { ENVIRONMENT_ONLY, SETTINGS } from "./settings.js"

/** A config file as read: where it is, its assignments, its malformed lines and its permission bits. */
export interface ConfigFileContents {
  readonly path: string
  readonly entries: ReadonlyArray<EnvLine>
  readonly malformed: ReadonlyArray<number>
  readonly mode: number
}

/** What is worth saying about a config file: lines it cannot read (errors) and keys or permissions that look wrong. */
export interface Diagnostics {
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

const meant = (name: string) => closest(name, [...SETTINGS.keys(), ...ENVIRONMENT_ONLY])

/** What to say about a name that is no setting: the one probably meant, else where the settings are listed. */
const notASetting = (name: string): string => {
  const near = meant(name)
  return `${name} is not a shopsync setting and is ignored` +
    (near === undefined ? "; config/shopsync.env.example lists the settings" : `; did you mean ${near}?`)
}

const keyWarning = (file: string, { key, line }: EnvLine): string | undefined => {
  if (SETTINGS.has(key)) return undefined
  if ((ENVIRONMENT_ONLY as ReadonlyArray<string>).includes(key)) {
    return `${file}:${line}: ${key} is read from the environment only and has no effect in a config file; set it in the environment`
  }
  return `${file}:${line}: ${notASetting(key)}`
}

/** The prefixes of shopsync's variables: another name with one is a typo or a setting that does not exist. */
const OURS = /^(STORE|MARKETING|SHOPSYNC)_/

/**
 * The variables Kubernetes defines for each Service of the namespace (a Service named shopsync gives SHOPSYNC_PORT=tcp://…,
 * SHOPSYNC_SERVICE_HOST, SHOPSYNC_PORT_8787_TCP_ADDR…): not typos, so not warned about.
 */
const isServiceLink = (name: string, value: string): boolean =>
  /_SERVICE_(HOST|PORT)(_\w+)?$/.test(name) || /_PORT_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?$/.test(name) ||
  (/_PORT$/.test(name) && /^(tcp|udp|sctp):\/\//.test(value))

const unknownVariables = (env: Readonly<Record<string, string | undefined>>) =>
  Object.entries(env).filter(([name, value]) =>
    OURS.test(name) && !SETTINGS.has(name) && !(ENVIRONMENT_ONLY as ReadonlyArray<string>).includes(name) &&
    !isServiceLink(name, value ?? "")).map(([name]) => name)

/** The variable of the environment that is a misspelling of `setting` (STORE_CONSUMER_SECRT for STORE_CONSUMER_SECRET), if any. */
export const misspelling = (setting: string, env: Readonly<Record<string, string | undefined>>): string | undefined =>
  unknownVariables(env).find((name) => meant(name) === setting)

/** One warning per variable in the environment that looks like shopsync's and is none of its settings. */
export const environmentWarnings = (env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> =>
  unknownVariables(env).sort().map((name) => `environment: ${notASetting(name)}`)

/** Secrets in a file its group or others may read: the first such line, the mode and the fix. */
const exposureWarning = (file: ConfigFileContents): string | undefined => {
  if ((file.mode & 0o077) === 0) return undefined
  const secret = file.entries.find((e) => SETTINGS.get(e.key)?.secret(e.value) === true)
  if (secret === undefined) return undefined
  return `${file.path}:${secret.line}: ${secret.key} is a secret, and the file is readable by ` +
    `${(file.mode & 0o007) !== 0 ? "every user" : "its group"} (mode ${(file.mode & 0o777).toString(8).padStart(4, "0")}); ` +
    `run chmod 600 ${file.path}`
}

export const diagnose = (file: ConfigFileContents): Diagnostics => ({
  errors: file.malformed.map((line) =>
    `${file.path}:${line}: not a KEY=VALUE line; each line must be an assignment such as STORE_ID=main, a # comment, or empty`
  ),
  warnings: [...file.entries.map((e) => keyWarning(file.path, e)), exposureWarning(file)].filter((w): w is string => w !== undefined)
})
