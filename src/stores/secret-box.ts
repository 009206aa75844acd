import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { type ConfigError, Context, Data, Effect, Layer, Redacted } from "effect"
import { loadMasterKey, type MasterKey, type MasterKeyFileInvalid, type MasterKeyMissing } from "./master-key.js"

/**
 * A sealed value: [key version: 1 byte][IV: 12 random bytes][GCM tag: 16 bytes][ciphertext]. The additional
 * authenticated data is the value's place (store id and field), so a value copied to another row or column fails to open.
 */
const IV_BYTES = 12
const TAG_BYTES = 16
const HEADER = 1 + IV_BYTES + TAG_BYTES

/** A secret that the master key does not open: another key sealed it, or it was altered. Names the key to check. */
export class MasterKeyWrong extends Data.TaggedError("MasterKeyWrong")<{ readonly place: string; readonly reason: string }> {
  override get message() {
    return `cannot decrypt ${this.place}: ${this.reason}. Check SHOPSYNC_MASTER_KEY (or the file SHOPSYNC_MASTER_KEY_FILE ` +
      "names): it must be the key the store was added with; nothing was sent to the store"
  }
}

export type KeyProblem = MasterKeyMissing | MasterKeyFileInvalid | ConfigError.ConfigError

/** Where a sealed value belongs: what its authentication binds it to, and how messages name it. */
export interface SecretPlace {
  readonly storeId: string
  readonly field: string
}

const aad = (place: SecretPlace) => Buffer.from(`shopsync:${place.storeId}:${place.field}`, "utf8")
const placeText = (place: SecretPlace) => `store ${place.storeId}'s ${place.field.replaceAll("_", " ")}`

export const seal = (key: MasterKey, place: SecretPlace, secret: Redacted.Redacted<string>): Uint8Array => {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", Redacted.value(key.bytes), iv).setAAD(aad(place))
  const body = Buffer.concat([cipher.update(Redacted.value(secret), "utf8"), cipher.final()])
  return Buffer.concat([Buffer.of(key.version), iv, cipher.getAuthTag(), body])
}

export const open = (key: MasterKey, place: SecretPlace, sealed: Uint8Array): Effect.Effect<Redacted.Redacted<string>, MasterKeyWrong> =>
  Effect.suspend(() => {
    const box = Buffer.from(sealed)
    if (box.length < HEADER) return Effect.fail(new MasterKeyWrong({ place: placeText(place), reason: "the stored value is too short to be a sealed secret" }))
    if (box[0] !== key.version) {
      return Effect.fail(new MasterKeyWrong({ place: placeText(place), reason: `it was sealed under key version ${box[0]}, and this key is version ${key.version}` }))
    }
    const decipher = createDecipheriv("aes-256-gcm", Redacted.value(key.bytes), box.subarray(1, 1 + IV_BYTES)).setAAD(aad(place))
    decipher.setAuthTag(box.subarray(1 + IV_BYTES, HEADER))
    return Effect.try({
      try: () => Redacted.make(Buffer.concat([decipher.update(box.subarray(HEADER)), decipher.final()]).toString("utf8")),
      catch: () => new MasterKeyWrong({ place: placeText(place), reason: "the AES-256-GCM authentication failed (a different master key, or an altered value)" })
    })
  })

/** Seals and opens the registry's secrets under the master key, loaded when first needed (listing needs none). */
export class SecretBox extends Context.Tag("SecretBox")<SecretBox, {
  readonly key: Effect.Effect<MasterKey, KeyProblem>
  readonly seal: (place: SecretPlace, secret: Redacted.Redacted<string>) => Effect.Effect<Uint8Array, KeyProblem>
  readonly open: (place: SecretPlace, sealed: Uint8Array) => Effect.Effect<Redacted.Redacted<string>, KeyProblem | MasterKeyWrong>
}>() {}

export const SecretBoxLive = Layer.effect(
  SecretBox,
  Effect.map(Effect.cached(loadMasterKey("reading or writing a registered store's secrets")), (key) => ({
    key,
    seal: (place, secret) => Effect.map(key, (k) => seal(k, place, secret)),
    open: (place, sealed) => Effect.flatMap(key, (k) => open(k, place, sealed))
  }))
)
