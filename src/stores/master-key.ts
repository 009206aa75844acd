import * as fs from "node:fs"
import { type ConfigError, Data, Effect, Option, Redacted } from "effect"
import { decodeMasterKey, MASTER_KEY_FORMAT, masterKeyConfig, masterKeyFileConfig } from "../config/settings.js"

/** The key the registry's secrets are encrypted under, with the version byte each value it seals carries. */
export interface MasterKey {
  /** Written before every sealed value, so a later key can be told from this one when keys rotate. */
  readonly version: number
  readonly bytes: Redacted.Redacted<Uint8Array>
}

/** The only key version so far; a rotation adds the next one beside it. */
export const KEY_VERSION = 1

/** Neither SHOPSYNC_MASTER_KEY nor SHOPSYNC_MASTER_KEY_FILE is set: nothing can be encrypted or decrypted. */
export class MasterKeyMissing extends Data.TaggedError("MasterKeyMissing")<{ readonly needed: string }> {
  override get message() {
    return `${this.needed} needs the master key, and neither SHOPSYNC_MASTER_KEY nor SHOPSYNC_MASTER_KEY_FILE is set. ` +
      `The registry's secrets are encrypted under it: set SHOPSYNC_MASTER_KEY to ${MASTER_KEY_FORMAT}, or ` +
      "SHOPSYNC_MASTER_KEY_FILE to a file holding one (chmod 600), and keep the same key for every command and worker"
  }
}

/** SHOPSYNC_MASTER_KEY_FILE names a file that cannot be read or does not hold a key. */
export class MasterKeyFileInvalid extends Data.TaggedError("MasterKeyFileInvalid")<{ readonly file: string; readonly problem: string }> {
  override get message() {
    return `SHOPSYNC_MASTER_KEY_FILE ${this.file}: ${this.problem}`
  }
}

const readKeyFile = (file: string) =>
  Effect.gen(function*() {
    const { text, mode } = yield* Effect.try({
      try: () => ({ text: fs.readFileSync(file, "utf8"), mode: fs.statSync(file).mode }),
      catch: (e) => new MasterKeyFileInvalid({ file, problem: `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})` })
    })
    const bytes = decodeMasterKey(text)
    if (bytes === undefined) return yield* new MasterKeyFileInvalid({ file, problem: `must hold ${MASTER_KEY_FORMAT}` })
    if ((mode & 0o077) !== 0) {
      const who = (mode & 0o007) !== 0 ? "every user" : "its group"
      yield* Effect.logWarning(
        `SHOPSYNC_MASTER_KEY_FILE ${file} is readable by ${who} (mode 0${(mode & 0o777).toString(8)}): ` +
          `whoever reads it can decrypt every store's secrets; run chmod 600 ${file}`
      )
    }
    return bytes
  })

/** The master key from SHOPSYNC_MASTER_KEY, else from the file SHOPSYNC_MASTER_KEY_FILE names. */
export const loadMasterKey = (needed: string): Effect.Effect<MasterKey, MasterKeyMissing | MasterKeyFileInvalid | ConfigError.ConfigError> =>
  Effect.gen(function*() {
    const inline = yield* masterKeyConfig
    if (Option.isSome(inline)) {
      return { version: KEY_VERSION, bytes: Redacted.make(decodeMasterKey(Redacted.value(inline.value))!) }
    }
    const file = yield* masterKeyFileConfig
    if (Option.isNone(file)) return yield* new MasterKeyMissing({ needed })
    return { version: KEY_VERSION, bytes: Redacted.make(yield* readKeyFile(file.value)) }
  })
