import { hkdfSync } from "node:crypto"
import { type ConfigError, Context, Data, Effect, Layer, Option, Redacted } from "effect"
import { readSecretFile } from "../config/secret-file.js"
import {
  CLUSTER_SECRET_FORMAT,
  CLUSTER_SECRET_MIN_LENGTH,
  clusterSecretConfig,
  clusterSecretFileConfig,
  isLoopback
} from "../config/settings.js"

/**
 * A runner's socket on an address other machines can reach (or a connection to one) without SHOPSYNC_CLUSTER_SECRET:
 * whoever reached it could run jobs, so the runner does not listen and the client does not connect.
 */
export class ClusterSecretRequired extends Data.TaggedError("ClusterSecretRequired")<{
  readonly address: string
  readonly side: "listen" | "connect"
}> {
  override get message() {
    const what = this.side === "listen"
      ? `the runner would listen on ${this.address} (SHOPSYNC_RUNNER_HOST), an address other machines can reach`
      : `the runner at ${this.address} is not on this machine's loopback`
    return `${what}, and SHOPSYNC_CLUSTER_SECRET is not set: anyone who connects could run jobs. Set ` +
      `SHOPSYNC_CLUSTER_SECRET (or SHOPSYNC_CLUSTER_SECRET_FILE, a file holding it) to the same secret, ` +
      `${CLUSTER_SECRET_FORMAT}, for every worker and every \`stores sync\`/\`stores backfill\`; or, for workers ` +
      "on one machine only, SHOPSYNC_RUNNER_HOST=127.0.0.1"
  }
}

/** SHOPSYNC_CLUSTER_SECRET_FILE names a file that cannot be read or holds too short a secret. */
export class ClusterSecretFileInvalid extends Data.TaggedError("ClusterSecretFileInvalid")<{
  readonly file: string
  readonly problem: string
}> {
  override get message() {
    return `SHOPSYNC_CLUSTER_SECRET_FILE ${this.file}: ${this.problem}`
  }
}

/**
 * The key of the runners' TLS (a pre-shared key, see runner-socket.ts): HKDF-SHA256 of the secret, so the key is
 * always 32 bytes and is used for nothing else.
 */
export const derivePsk = (secret: Redacted.Redacted<string>): Redacted.Redacted<Uint8Array> =>
  Redacted.make(new Uint8Array(hkdfSync("sha256", Redacted.value(secret).trim(), "shopsync cluster", "runner socket tls-psk v1", 32)))

const readClusterSecretFile = (file: string) =>
  Effect.gen(function*() {
    const invalid = (problem: string) => new ClusterSecretFileInvalid({ file, problem })
    const text = yield* readSecretFile("SHOPSYNC_CLUSTER_SECRET_FILE", file, "whoever reads it can run jobs on every worker", invalid)
    if (text.trim().length < CLUSTER_SECRET_MIN_LENGTH) return yield* invalid(`must hold ${CLUSTER_SECRET_FORMAT}`)
    return Redacted.make(text)
  })

/** The runners' pre-shared key: from SHOPSYNC_CLUSTER_SECRET, else the file SHOPSYNC_CLUSTER_SECRET_FILE names; None when neither is set. */
export class RunnerPsk extends Context.Tag("shopsync/RunnerPsk")<RunnerPsk, Option.Option<Redacted.Redacted<Uint8Array>>>() {}

export const loadRunnerPsk: Effect.Effect<Option.Option<Redacted.Redacted<Uint8Array>>, ConfigError.ConfigError | ClusterSecretFileInvalid> =
  Effect.gen(function*() {
    const inline = yield* clusterSecretConfig
    if (Option.isSome(inline)) return Option.some(derivePsk(inline.value))
    const file = yield* clusterSecretFileConfig
    if (Option.isNone(file)) return Option.none()
    return Option.some(derivePsk(yield* readClusterSecretFile(file.value)))
  })

export const RunnerPskLive = Layer.effect(RunnerPsk, loadRunnerPsk)

/** Fails when a runner would listen on `host` unauthenticated: without a secret, only loopback. */
export const requireSecretUnlessLoopback = (
  psk: Option.Option<unknown>,
  host: string,
  port: number,
  side: "listen" | "connect"
): Effect.Effect<void, ClusterSecretRequired> =>
  Option.isNone(psk) && !isLoopback(host) ? Effect.fail(new ClusterSecretRequired({ address: `${host}:${port}`, side })) : Effect.void
