import * as net from "node:net"
import { Config, ConfigError, Either, Option, Redacted } from "effect"
import { inRange, named, wholeNumber } from "./setting.js"

/** `5m`, `90s`, `1h`, `500ms` or a bare number of seconds; the value in milliseconds, or undefined when unreadable. */
export const parseDurationMs = (text: string): number | undefined => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text)
  if (!m) return undefined
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? "s").toLowerCase() as "ms" | "s" | "m" | "h"]
  return Number(m[1]) * unit
}

/** What `shopsync serve` listens on, how often it syncs in the background, and the webhooks' shared secret. */
export interface ServeSettings {
  readonly host: string
  readonly port: number
  /** SHOPSYNC_SYNC_EVERY in milliseconds. */
  readonly syncEveryMs: number
  /** STORE_WEBHOOK_SECRET: the key of every delivery's HMAC; unset, every delivery is refused. */
  readonly webhookSecret: Option.Option<Redacted.Redacted<string>>
}

export const syncEveryConfig = named("SHOPSYNC_SYNC_EVERY", Config.string().pipe(
  Config.withDefault("5m"),
  Config.validate({
    message: "SHOPSYNC_SYNC_EVERY must be a duration of at least 1s, such as 5m, 90s, 1h or a number of seconds",
    validation: (s) => (parseDurationMs(s) ?? 0) >= 1000
  }),
  Config.map((s) => parseDurationMs(s)!)
))

export const webhookSecretConfig = Config.option(named("STORE_WEBHOOK_SECRET", Config.redacted().pipe(
  Config.validate({ message: "STORE_WEBHOOK_SECRET must not be empty", validation: (s) => Redacted.value(s) !== "" })
)))

/**
 * SHOPSYNC_INBOX_MAX_MB: the webhook bodies one store's inbox may hold (MiB; fractions allowed), in bytes. Past it a
 * delivery is answered 503, once the store's applied and skipped deliveries have made what room they can.
 */
export const inboxMaxBytesConfig = named("SHOPSYNC_INBOX_MAX_MB", Config.number().pipe(
  Config.withDefault(256),
  inRange("SHOPSYNC_INBOX_MAX_MB", "a number of MiB", { min: 0.01, max: 1_048_576 }),
  Config.map((mb) => Math.floor(mb * 1024 * 1024))
))

/**
 * SHOPSYNC_WEBHOOK_LOG_EVERY: how often, at most, one cause of rejected webhook deliveries is logged (`serve`, `worker`);
 * what comes between is summed into its next line. In milliseconds.
 */
export const webhookLogEveryConfig = named("SHOPSYNC_WEBHOOK_LOG_EVERY", Config.string().pipe(
  Config.withDefault("1m"),
  Config.validate({
    message: "SHOPSYNC_WEBHOOK_LOG_EVERY must be a duration of at least 1s, such as 1m, 90s, 1h or a number of seconds",
    validation: (s) => (parseDurationMs(s) ?? 0) >= 1000
  }),
  Config.map((s) => parseDurationMs(s)!)
))

/** Where `serve` and `worker` take webhooks (and answer /healthz); the rest is on the admin listener. */
export const httpListenConfig = Config.all({
  host: named("SHOPSYNC_HTTP_HOST", Config.string().pipe(
    Config.withDefault("127.0.0.1"),
    Config.validate({ message: "SHOPSYNC_HTTP_HOST must be an address or host name to listen on, such as 127.0.0.1 or 0.0.0.0", validation: (s) => /^[\w.:-]+$/.test(s) })
  )),
  port: wholeNumber("SHOPSYNC_HTTP_PORT", 8787, { min: 1, max: 65535 })
})

/**
 * A listener's host when it is this machine alone (127.0.0.0/8, ::1, localhost), by its literal form: a host name other
 * than localhost may resolve anywhere, so it counts as reachable by others.
 */
export const isLoopback = (host: string): boolean => {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase()
  if (h === "localhost") return true
  if (net.isIPv4(h)) return h.startsWith("127.")
  return net.isIPv6(h) && (h === "::1" || /^::ffff:127\./.test(h))
}

/** A token an attacker cannot guess, and one `openssl rand -hex 32` gives. */
export const ADMIN_TOKEN_MIN_LENGTH = 32

/** Where the status page, /metrics and the detailed /healthz are served, and the bearer token they ask for. */
export interface AdminSettings {
  readonly host: string
  readonly port: number
  /** SHOPSYNC_ADMIN_TOKEN: required whenever the host is not loopback; when set, asked for on loopback too. */
  readonly token: Option.Option<Redacted.Redacted<string>>
  /** SHOPSYNC_ADMIN_TOKEN_FILE: a file holding the token instead (read at start, see src/server/admin-token.ts). */
  readonly tokenFile: Option.Option<string>
}

const ADMIN_TOKEN_FIX = `set SHOPSYNC_ADMIN_TOKEN (or SHOPSYNC_ADMIN_TOKEN_FILE, a file holding it) to a random string of at least ` +
  `${ADMIN_TOKEN_MIN_LENGTH} characters (\`openssl rand -hex 32\`) and give Prometheus the same as its bearer token, or keep ` +
  "SHOPSYNC_ADMIN_HOST at 127.0.0.1 and reach it through an SSH tunnel or an authenticating reverse proxy"

export const adminSettingsConfig: Config.Config<AdminSettings> = Config.all({
  host: named("SHOPSYNC_ADMIN_HOST", Config.string().pipe(
    Config.withDefault("127.0.0.1"),
    Config.validate({ message: "SHOPSYNC_ADMIN_HOST must be an address or host name to listen on, such as 127.0.0.1 or 0.0.0.0", validation: (s) => /^[\w.:-]+$/.test(s) })
  )),
  // Next to the webhook port's default; nothing else of shopsync's listens there.
  port: wholeNumber("SHOPSYNC_ADMIN_PORT", 8788, { min: 1, max: 65535 }),
  token: Config.option(named("SHOPSYNC_ADMIN_TOKEN", Config.redacted().pipe(
    Config.validate({
      message: `SHOPSYNC_ADMIN_TOKEN must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters (generate one with \`openssl rand -hex 32\`)`,
      validation: (s) => Redacted.value(s).trim().length >= ADMIN_TOKEN_MIN_LENGTH
    })
  ), () => true)),
  tokenFile: Config.option(named("SHOPSYNC_ADMIN_TOKEN_FILE", Config.string().pipe(
    Config.validate({ message: "SHOPSYNC_ADMIN_TOKEN_FILE must be a file's path", validation: (s) => s.trim() !== "" })
  )))
}).pipe(Config.mapOrFail((admin) =>
  // Off loopback the page (90 days of sales, store errors) and /metrics would be open to whoever reaches the address.
  isLoopback(admin.host) || Option.isSome(admin.token) || Option.isSome(admin.tokenFile)
    ? Either.right(admin)
    : Either.left(ConfigError.InvalidData(["SHOPSYNC_ADMIN_TOKEN"],
      `SHOPSYNC_ADMIN_HOST=${admin.host} is not a loopback address, so the status page and /metrics would be open to anyone ` +
        `who reaches it: ${ADMIN_TOKEN_FIX}`))
))

export const serveSettingsConfig: Config.Config<ServeSettings> = Config.map(
  Config.all({ listen: httpListenConfig, syncEveryMs: syncEveryConfig, webhookSecret: webhookSecretConfig }),
  ({ listen, ...rest }) => ({ ...listen, ...rest })
)

/** What a master key is and how to make one, for every message about it. */
export const MASTER_KEY_FORMAT = "32 random bytes as base64 or hex (generate one with `openssl rand -base64 32`)"

/** A 32-byte key written as base64 (44 characters, or 43 unpadded) or hex (64): its bytes, or undefined. */
export const decodeMasterKey = (text: string): Uint8Array | undefined => {
  const t = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, "hex")
  if (!/^[A-Za-z0-9+/]{43}=?$/.test(t)) return undefined
  const bytes = Buffer.from(t, "base64")
  return bytes.length === 32 ? bytes : undefined
}

/** A master key's variable (a secret: never echoed by diagnostics) and its `_FILE` twin naming a file holding it. */
const keyVariable = (name: string) => Config.option(named(name, Config.redacted().pipe(
  Config.validate({ message: `${name} must be ${MASTER_KEY_FORMAT}`, validation: (key) => decodeMasterKey(Redacted.value(key)) !== undefined })
), () => true))
const keyFileVariable = (name: string) => Config.option(named(name, Config.string().pipe(
  Config.validate({ message: `${name} must be a file's path`, validation: (s) => s.trim() !== "" })
)))

/** SHOPSYNC_MASTER_KEY: the key the store registry's secrets are encrypted under (AES-256-GCM). */
export const masterKeyConfig = keyVariable("SHOPSYNC_MASTER_KEY")
/** SHOPSYNC_MASTER_KEY_FILE: a file holding the master key instead (read when SHOPSYNC_MASTER_KEY is unset). */
export const masterKeyFileConfig = keyFileVariable("SHOPSYNC_MASTER_KEY_FILE")
/** SHOPSYNC_PREVIOUS_MASTER_KEY: during a key rotation, the key being retired; secrets still sealed under it open too. */
export const previousMasterKeyConfig = keyVariable("SHOPSYNC_PREVIOUS_MASTER_KEY")
/** SHOPSYNC_PREVIOUS_MASTER_KEY_FILE: a file holding the retiring key instead. */
export const previousMasterKeyFileConfig = keyFileVariable("SHOPSYNC_PREVIOUS_MASTER_KEY_FILE")

/** Where a cluster runner (`shopsync worker`) listens and how the other runners reach it. */
export interface RunnerSettings {
  /** SHOPSYNC_RUNNER_HOST: the address other runners connect to, so not 0.0.0.0 (it is also where this runner listens). */
  readonly host: string
  /** SHOPSYNC_RUNNER_PORT: the runner's socket port, one per runner on a machine. */
  readonly port: number
  /** SHOPSYNC_RUNNER_CONCURRENCY: store jobs (syncs, backfills, pushes) one runner runs at once. */
  readonly concurrency: number
}

export const runnerSettingsConfig: Config.Config<RunnerSettings> = Config.all({
  host: named("SHOPSYNC_RUNNER_HOST", Config.string().pipe(
    Config.withDefault("127.0.0.1"),
    Config.validate({ message: "SHOPSYNC_RUNNER_HOST must be the address other runners reach this one at, such as 10.0.0.5 or worker-1", validation: (s) => /^[\w.:-]+$/.test(s) && s !== "0.0.0.0" })
  )),
  port: wholeNumber("SHOPSYNC_RUNNER_PORT", 34431, { min: 1, max: 65535 }),
  concurrency: wholeNumber("SHOPSYNC_RUNNER_CONCURRENCY", 4, { min: 1, max: 64 })
})

/** The shortest cluster secret accepted: it keys the runners' TLS, and a short one could be guessed from a captured handshake. */
export const CLUSTER_SECRET_MIN_LENGTH = 32
export const CLUSTER_SECRET_FORMAT = `at least ${CLUSTER_SECRET_MIN_LENGTH} characters (generate one with \`openssl rand -base64 32\`)`

/** SHOPSYNC_CLUSTER_SECRET: the secret every runner and cluster client shares; their sockets' TLS key is derived from it. */
export const clusterSecretConfig = Config.option(named("SHOPSYNC_CLUSTER_SECRET", Config.redacted().pipe(
  Config.validate({
    message: `SHOPSYNC_CLUSTER_SECRET must be ${CLUSTER_SECRET_FORMAT}`,
    validation: (s) => Redacted.value(s).trim().length >= CLUSTER_SECRET_MIN_LENGTH
  })
), () => true))
/** SHOPSYNC_CLUSTER_SECRET_FILE: a file holding the cluster secret instead (read when SHOPSYNC_CLUSTER_SECRET is unset). */
export const clusterSecretFileConfig = keyFileVariable("SHOPSYNC_CLUSTER_SECRET_FILE")
