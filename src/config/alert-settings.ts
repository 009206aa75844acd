import { Config, ConfigError, Either, Option, Redacted } from "effect"
import { isLoopback } from "./service-settings.js"
import { named } from "./setting.js"

/**
 * Where alerts go (src/jobs/alerts.ts). The URL is a secret: Slack's and Teams' incoming-webhook URLs carry their
 * token in the path, so it is Redacted, never logged (only its host) and never in a message.
 */
export interface AlertSettings {
  /** SHOPSYNC_ALERT_WEBHOOK_URL, or None when only the `_FILE` variant (or neither) is set. */
  readonly url: Option.Option<Redacted.Redacted<string>>
  /** SHOPSYNC_ALERT_WEBHOOK_URL_FILE: a file holding the URL instead (read as StoreJobs is built). */
  readonly urlFile: Option.Option<string>
  /** SHOPSYNC_ALERT_ALLOW_HTTP=1: a plain-http receiver off loopback is accepted. */
  readonly allowHttp: boolean
}

/** The receiver's host, the one part of the URL that may be shown (in logs and messages). */
export const alertHost = (url: string): string => (URL.canParse(url) ? new URL(url).host : "(not a URL)")

/**
 * What is wrong with a receiver URL (`variable` names where it came from), or undefined. Over plain http the alerts
 * and the URL's token travel in clear, so it is refused off loopback unless allowed, as MARKETING_ALLOW_HTTP does.
 * The URL itself is never part of the message.
 */
export const alertUrlProblem = (variable: string, url: string, allowHttp: boolean): string | undefined => {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    return `${variable} must be an http(s) URL, the address alerts are POSTed to (for example https://hooks.slack.com/services/…)`
  }
  const u = new URL(url)
  if (u.protocol === "https:" || allowHttp || isLoopback(u.hostname)) return undefined
  return `${variable} uses http: to ${u.host}, not this machine, so the alerts and the URL's token would travel in clear: ` +
    "use the receiver's https:// address, or set SHOPSYNC_ALERT_ALLOW_HTTP=1 to accept an unencrypted connection"
}

const allowHttpConfig = named("SHOPSYNC_ALERT_ALLOW_HTTP", Config.string().pipe(
  Config.map((s) => s.trim()),
  Config.withDefault("0"),
  Config.validate({ message: "SHOPSYNC_ALERT_ALLOW_HTTP must be 0 or 1 (1: accept a plain http:// SHOPSYNC_ALERT_WEBHOOK_URL off loopback)", validation: (s) => s === "0" || s === "1" }),
  Config.map((s) => s === "1")
))

export const alertSettingsConfig: Config.Config<AlertSettings> = Config.all({
  url: Config.option(named("SHOPSYNC_ALERT_WEBHOOK_URL", Config.redacted().pipe(Config.map((u) => Redacted.make(Redacted.value(u).trim()))), () => true)),
  urlFile: Config.option(named("SHOPSYNC_ALERT_WEBHOOK_URL_FILE", Config.string().pipe(
    Config.validate({ message: "SHOPSYNC_ALERT_WEBHOOK_URL_FILE must be a file's path", validation: (s) => s.trim() !== "" })
  ))),
  allowHttp: allowHttpConfig
}).pipe(Config.mapOrFail((alerts) => {
  const problem = Option.match(alerts.url, {
    onNone: () => undefined,
    onSome: (url) => alertUrlProblem("SHOPSYNC_ALERT_WEBHOOK_URL", Redacted.value(url), alerts.allowHttp)
  })
  return problem === undefined ? Either.right(alerts) : Either.left(ConfigError.InvalidData(["SHOPSYNC_ALERT_WEBHOOK_URL"], problem))
}))
