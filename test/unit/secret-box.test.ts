import { randomBytes } from "node:crypto"
import { Effect, Either, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { decodeMasterKey } from "../../src/config/settings.js"
import { type MasterKey } from "../../src/stores/master-key.js"
import { open, openWithRing, seal } from "../../src/stores/secret-box.js"

const key = (bytes = randomBytes(32)): MasterKey => ({ bytes: Redacted.make(bytes) })
const place = { storeId: "shop1", field: "consumer_secret" }
const opened = (k: MasterKey, p: typeof place, box: Uint8Array) =>
  Effect.runSync(Effect.either(open(k, p, box).pipe(Effect.map(Redacted.value))))

describe("the registry's secret box (AES-256-GCM under the master key)", () => {
  it("opens what it sealed; each sealing has its own IV; the layout is format, IV, tag, ciphertext", () => {
    const k = key()
    const one = seal(k, place, Redacted.make("cs_secret"))
    const two = seal(k, place, Redacted.make("cs_secret"))
    expect(Buffer.from(one).equals(Buffer.from(two))).toBe(false)
    expect(one[0]).toBe(1)
    expect(one.length).toBe(1 + 12 + 16 + "cs_secret".length)
    expect(Buffer.from(one).toString("latin1")).not.toContain("cs_secret")
    expect(opened(k, place, one)).toEqual(Either.right("cs_secret"))
  })

  it("refuses another key, another place, an altered value and an unknown format, naming SHOPSYNC_MASTER_KEY", () => {
    const k = key()
    const box = seal(k, place, Redacted.make("cs_secret"))
    const failures = [
      opened(key(), place, box),
      opened(k, { storeId: "shop2", field: "consumer_secret" }, box),
      opened(k, { ...place, field: "webhook_secret" }, box),
      opened(k, place, Buffer.concat([box.subarray(0, box.length - 1), Buffer.of(box[box.length - 1]! ^ 1)])),
      opened(k, place, Buffer.concat([Buffer.of(2), box.subarray(1)])),
      opened(k, place, box.subarray(0, 20))
    ]
    for (const failure of failures) {
      expect(Either.isLeft(failure)).toBe(true)
      if (Either.isLeft(failure)) expect(failure.left.message).toContain("SHOPSYNC_MASTER_KEY")
    }
    if (Either.isLeft(failures[0]!)) expect(failures[0].left.message).toContain("authentication failed")
    if (Either.isLeft(failures[4]!)) expect(failures[4].left.message).toContain("format 2")
  })

  it("during a rotation opens what either key sealed, says which, and names both keys when neither opens it", () => {
    const [current, previous] = [key(), key()]
    const ring = { current, previous: Option.some(previous) }
    const underRing = (box: Uint8Array) => Effect.runSync(Effect.either(openWithRing(ring, place, box)))
    const fromPrevious = underRing(seal(previous, place, Redacted.make("cs_old")))
    const fromCurrent = underRing(seal(current, place, Redacted.make("cs_new")))
    expect(Either.map(fromPrevious, (o) => [Redacted.value(o.secret), o.underPrevious])).toEqual(Either.right(["cs_old", true]))
    expect(Either.map(fromCurrent, (o) => [Redacted.value(o.secret), o.underPrevious])).toEqual(Either.right(["cs_new", false]))
    const neither = underRing(seal(key(), place, Redacted.make("cs_other")))
    expect(Either.isLeft(neither) && neither.left.message).toContain("neither the master key nor the previous one opens it")
    const withoutPrevious = Effect.runSync(Effect.either(openWithRing({ current, previous: Option.none() }, place, seal(previous, place, Redacted.make("x")))))
    expect(Either.isLeft(withoutPrevious) && withoutPrevious.left.message).toContain("SHOPSYNC_PREVIOUS_MASTER_KEY")
  })

  it("takes a 32-byte key as base64 or hex, nothing shorter or longer", () => {
    const bytes = randomBytes(32)
    expect(Buffer.from(decodeMasterKey(bytes.toString("base64"))!).equals(bytes)).toBe(true)
    expect(Buffer.from(decodeMasterKey(`${bytes.toString("base64").replace(/=$/, "")}\n`)!).equals(bytes)).toBe(true)
    expect(Buffer.from(decodeMasterKey(bytes.toString("hex"))!).equals(bytes)).toBe(true)
    expect(decodeMasterKey(randomBytes(16).toString("base64"))).toBeUndefined()
    expect(decodeMasterKey(randomBytes(31).toString("hex"))).toBeUndefined()
    expect(decodeMasterKey(randomBytes(33).toString("base64"))).toBeUndefined()
    expect(decodeMasterKey("correct horse battery staple")).toBeUndefined()
  })
})
