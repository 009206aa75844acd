import { readSecretFile } from "../config/secret-file.js"
import { type Config, type ConfigError, Data, Effect, Option, Redacted } from "effect"
import {
  decodeMasterKey,
  MASTER_KEY_FORMAT,
  masterKeyConfig,
  masterKeyFileConfig,
  previousMasterKeyConfig,
  previousMasterKeyFileConfig
} from "../config/settings.js"

/** A key the registry's secrets are encrypted under. */
export interface MasterKey {
  readonly bytes: Redacted.Redacted<Uint8Array>
}

/**
 * The keys a process holds: `current` seals and opens; during a rotation `previous` (the retiring key) opens what is
 * still sealed under it, until `shopsync stores rotate-key` has resealed everything under `current`.
 */
export interface KeyRing {
  readonly current: MasterKey
  readonly previous: Option.Option<MasterKey>
}

/** Neither SHOPSYNC_MASTER_KEY nor SHOPSYNC_MASTER_KEY_FILE is set: nothing can be encrypted or decrypted. */
export class MasterKeyMissing extends Data.TaggedError("MasterKeyMissing")<{ readonly needed: string }> {
  override get message() {
    return `${this.needed} needs the master key, and neither SHOPSYNC_MASTER_KEY nor SHOPSYNC_MASTER_KEY_FILE is set. ` +
      `The registry's secrets are encrypted under it: set SHOPSYNC_MASTER_KEY to ${MASTER_KEY_FORMAT}, or ` +
      "SHOPSYNC_MASTER_KEY_FILE to a file holding one (chmod 600), and keep the same key for every command and worker"
  }
}

/** SHOPSYNC_(PREVIOUS_)MASTER_KEY_FILE names a file that cannot be read or does not hold a key. */
export class MasterKeyFileInvalid extends Data.TaggedError("MasterKeyFileInvalid")<{
  readonly variable: string
  readonly file: string
  readonly problem: string
}> {
  override get message() {
    return `${this.variable} ${this.file}: ${this.problem}`
  }
}

const readKeyFile = (variable: string, file: string) =>
  Effect.gen(function*() {
    const invalid = (problem: string) => new MasterKeyFileInvalid({ variable, file, problem })
    const bytes = decodeMasterKey(yield* readSecretFile(variable, file, "whoever reads it can decrypt every store's secrets", invalid))
    if (bytes === undefined) return yield* invalid(`must hold ${MASTER_KEY_FORMAT}`)
    return bytes
  })

/** A key from its variable, else from the file its `_FILE` variable names; None when neither is set. */
const keyFrom = (
  inline: Config.Config<Option.Option<Redacted.Redacted<string>>>,
  file: Config.Config<Option.Option<string>>,
  fileVariable: string
): Effect.Effect<Option.Option<MasterKey>, MasterKeyFileInvalid | ConfigError.ConfigError> =>
  Effect.gen(function*() {
    const text = yield* inline
    if (Option.isSome(text)) return Option.some({ bytes: Redacted.make(decodeMasterKey(Redacted.value(text.value))!) })
    const path = yield* file
    if (Option.isNone(path)) return Option.none()
    return Option.some({ bytes: Redacted.make(yield* readKeyFile(fileVariable, path.value)) })
  })

/** The master key from SHOPSYNC_MASTER_KEY, else from the file SHOPSYNC_MASTER_KEY_FILE names. */
export const loadMasterKey = (needed: string): Effect.Effect<MasterKey, MasterKeyMissing | MasterKeyFileInvalid | ConfigError.ConfigError> =>
  Effect.flatMap(
    keyFrom(masterKeyConfig, masterKeyFileConfig, "SHOPSYNC_MASTER_KEY_FILE"),
    Option.match({ onNone: () => Effect.fail(new MasterKeyMissing({ needed })), onSome: Effect.succeed })
  )

/** The master key and, during a rotation, the retiring one (SHOPSYNC_PREVIOUS_MASTER_KEY or its _FILE). */
export const loadKeyRing = (needed: string): Effect.Effect<KeyRing, MasterKeyMissing | MasterKeyFileInvalid | ConfigError.ConfigError> =>
  Effect.all({
    current: loadMasterKey(needed),
    previous: keyFrom(previousMasterKeyConfig, previousMasterKeyFileConfig, "SHOPSYNC_PREVIOUS_MASTER_KEY_FILE")
  })
