import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { inboxMaxBytesConfig, parseDurationMs, serveSettingsConfig } from "../../src/config/settings.js"
import { deliveryHeaders, isPing, sign, signatureMatches } from "../../src/webhooks/headers.js"

const loadOf = <A>(config: Effect.Effect<A, unknown>) => (entries: Record<string, string>) =>
  Effect.runPromise(Effect.either(config).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))))
const load = loadOf(serveSettingsConfig)

describe("serve settings", () => {
  it("defaults to 127.0.0.1:8787, a sync every 5 minutes, no secret", async () => {
    const result = await load({})
    expect(result._tag === "Right" && { ...result.right, webhookSecret: Option.isNone(result.right.webhookSecret) }).toEqual({
      host: "127.0.0.1", port: 8787, syncEveryMs: 300_000, webhookSecret: true
    })
  })

  it("reads durations with a unit or as seconds, and refuses a port or duration out of range, naming the variable", async () => {
    expect([parseDurationMs("2s"), parseDurationMs("90"), parseDurationMs("5m"), parseDurationMs("1h"), parseDurationMs("soon")]).toEqual([2_000, 90_000, 300_000, 3_600_000, undefined])
    const port = await load({ SHOPSYNC_HTTP_PORT: "70000" })
    expect(port._tag === "Left" && String(port.left)).toContain("SHOPSYNC_HTTP_PORT must be a whole number from 1 to 65535")
    const every = await load({ SHOPSYNC_SYNC_EVERY: "500ms" })
    expect(every._tag === "Left" && String(every.left)).toContain("SHOPSYNC_SYNC_EVERY must be a duration of at least 1s")
    const secret = await load({ STORE_WEBHOOK_SECRET: "s3cret" })
    expect(secret._tag === "Right" && Option.map(secret.right.webhookSecret, Redacted.value)).toEqual(Option.some("s3cret"))
  })

  it("bounds a store's inbox at 256 MiB unless SHOPSYNC_INBOX_MAX_MB says otherwise (fractions allowed)", async () => {
    const inbox = loadOf(inboxMaxBytesConfig)
    expect([await inbox({}), await inbox({ SHOPSYNC_INBOX_MAX_MB: "0.5" })].map((r) => r._tag === "Right" && r.right)).toEqual([256 * 1024 * 1024, 512 * 1024])
    const tiny = await inbox({ SHOPSYNC_INBOX_MAX_MB: "0" })
    expect(tiny._tag === "Left" && String(tiny.left)).toContain("SHOPSYNC_INBOX_MAX_MB must be a number of MiB from 0.01")
  })
})

describe("webhook signatures and headers", () => {
  const body = new TextEncoder().encode('{"id":7,"total":"10.00"}')

  it("accepts the body's own signature only", () => {
    const good = sign(body, "k")
    expect(signatureMatches(body, good, "k")).toBe(true)
    expect(signatureMatches(body, good, "other")).toBe(false)
    expect(signatureMatches(new TextEncoder().encode('{"id":7,"total":"1.00"}'), good, "k")).toBe(false)
    expect(signatureMatches(body, undefined, "k")).toBe(false)
    expect(signatureMatches(body, "", "k")).toBe(false)
    expect(signatureMatches(body, "short", "k")).toBe(false)
  })

  it("reads WooCommerce's X-WC- names and the seed's X-Shop- names; knows the creation ping", () => {
    expect(deliveryHeaders({ "x-wc-webhook-topic": "order.updated", "x-wc-webhook-id": "3", "x-wc-webhook-delivery-id": "9", "x-wc-webhook-signature": "s" }))
      .toMatchObject({ topic: "order.updated", webhookId: "3", deliveryId: "9", signature: "s" })
    expect(deliveryHeaders({ "x-shop-webhook-topic": "customer.deleted", "x-shop-webhook-id": "4" })).toMatchObject({ topic: "customer.deleted", webhookId: "4" })
    expect(isPing("application/x-www-form-urlencoded", "webhook_id=12")).toBe(true)
    expect(isPing("application/json", "webhook_id=12")).toBe(false)
  })
})
