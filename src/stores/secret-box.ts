import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { type ConfigError, Data, Effect, Option, Redacted } from "effect"
import { type KeyRing, loadKeyRing, type MasterKey, type MasterKeyFileInvalid, type MasterKeyMissing } from "./master-key.js"

/**
 * A sealed value: [format: 1 byte][IV: 12 random bytes][GCM tag: 16 bytes][ciphertext]. The additional
 * authenticated data is the value's place (store id and field), so a value copied to another row or column fails to open.
 * The value does not say which key sealed it: during a rotation the ring's keys are tried in turn (GCM's tag tells).
 */
const FORMAT = 1
const IV_BYTES = 12
const TAG_BYTES = 16
const HEADER = 1 + IV_BYTES + TAG_BYTES

/** A secret that the master key does not open: another key sealed it, or it was altered. Names the key to check. */
export class MasterKeyWrong extends Data.TaggedError("MasterKeyWrong")<{ readonly place: string; readonly reason: string }> {
  override get message() {
    return `cannot decrypt ${this.place}: ${this.reason}. Check SHOPSYNC_MASTER_KEY (or the file SHOPSYNC_MASTER_KEY_FILE ` +
      "names): it must be the key the store was added with, or the key of the last `shopsync stores rotate-key` (during a " +
      "rotation, the retiring key goes in SHOPSYNC_PREVIOUS_MASTER_KEY); nothing was sent to the store"
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
  return Buffer.concat([Buffer.of(FORMAT), iv, cipher.getAuthTag(), body])
}

export const open = (key: MasterKey, place: SecretPlace, sealed: Uint8Array): Effect.Effect<Redacted.Redacted<string>, MasterKeyWrong> =>
  Effect.suspend(() => {
    const box = Buffer.from(sealed)
    if (box.length < HEADER) return Effect.fail(new MasterKeyWrong({ place: placeText(place), reason: "the stored value is too short to be a sealed secret" }))
    if (box[0] !== FORMAT) {
      return Effect.fail(new MasterKeyWrong({ place: placeText(place), reason: `the stored value has format ${box[0]}, which this version does not know` }))
    }
    const decipher = createDecipheriv("aes-256-gcm", Redacted.value(key.bytes), box.subarray(1, 1 + IV_BYTES)).setAAD(aad(place))
    decipher.setAuthTag(box.subarray(1 + IV_BYTES, HEADER))
    return Effect.try({
      try: () => Redacted.make(Buffer.concat([decipher.update(box.subarray(HEADER)), decipher.final()]).toString("utf8")),
      catch: () => new MasterKeyWrong({ place: placeText(place), reason: "the AES-256-GCM authentication failed (a different master key, or an altered value)" })
    })
  })

/** A secret opened with a ring's keys, and whether the retiring key had sealed it (it needs resealing). */
export interface Opened {
  readonly secret: Redacted.Redacted<string>
  readonly underPrevious: boolean
}

export const openWithRing = (ring: KeyRing, place: SecretPlace, sealed: Uint8Array): Effect.Effect<Opened, MasterKeyWrong> =>
  open(ring.current, place, sealed).pipe(
    Effect.map((secret) => ({ secret, underPrevious: false })),
    Effect.catchAll((wrong) =>
      Option.match(ring.previous, {
        onNone: () => Effect.fail(wrong),
        onSome: (previous) =>
          open(previous, place, sealed).pipe(
            Effect.map((secret) => ({ secret, underPrevious: true })),
            Effect.mapError((e) => new MasterKeyWrong({ place: e.place, reason: `neither the master key nor the previous one opens it (${e.reason})` }))
          )
      }))
  )

/** Seals and opens the registry's secrets under the master key ring, loaded when first needed (listing needs none). */
export class SecretBox extends Effect.Service<SecretBox>()("shopsync/SecretBox", {
  effect: Effect.map(Effect.cached(loadKeyRing("reading or writing a registered store's secrets")), (ring) => ({
    seal: (place: SecretPlace, secret: Redacted.Redacted<string>): Effect.Effect<Uint8Array, KeyProblem> =>
      Effect.map(ring, (r) => seal(r.current, place, secret)),
    open: (place: SecretPlace, sealed: Uint8Array): Effect.Effect<Redacted.Redacted<string>, KeyProblem | MasterKeyWrong> =>
      Effect.flatMap(ring, (r) => Effect.map(openWithRing(r, place, sealed), (o) => o.secret)),
    /** The value sealed under the current key, or None when it already is. */
    reseal: (place: SecretPlace, sealed: Uint8Array): Effect.Effect<Option.Option<Uint8Array>, KeyProblem | MasterKeyWrong> =>
      Effect.flatMap(ring, (r) =>
        Effect.map(openWithRing(r, place, sealed), (o) => o.underPrevious ? Option.some(seal(r.current, place, o.secret)) : Option.none()))
  }))
}) {}
