// Rejected webhook deliveries are logged once a minute per cause (the first at once, the rest summed into the next
// line), counted per store and cause, and the counts are the series /metrics exports. Deliveries stored that cannot
// be applied are logged by the same rule, counted by the inbox instead. Time is the TestClock's.
import { it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer, Logger, Metric, TestClock } from "effect"
import { describe, expect } from "vitest"
import { webhookRejections, WebhookRejections, WebhookRejectionsLive } from "../../src/webhooks/rejections.js"

/** The layer with every log line's message collected into `lines`. */
const collecting = (lines: Array<string>, tagStore: boolean) =>
  WebhookRejectionsLive({ tagStore }).pipe(
    Layer.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void lines.push(String(message)))))
  )

const tick = (seconds: number) => TestClock.adjust(Duration.seconds(seconds))

describe("webhook rejections", () => {
  it.scoped("logs a cause at once, then at most once a minute with what came between, each cause apart", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      const rejections = yield* WebhookRejections
      for (let i = 0; i < 3; i++) yield* rejections.record("signature", "shop")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^webhooks: 1 delivery rejected in the last minute: bad or missing signature \(401\); .*STORE_WEBHOOK_SECRET/)
      yield* tick(30)
      yield* rejections.record("signature", "shop")
      yield* rejections.record("inbox_full", "shop")
      expect(lines).toHaveLength(2)
      expect(lines[1]).toMatch(/^webhooks: 1 delivery rejected in the last minute: the store's inbox is full \(503\); .*SHOPSYNC_INBOX_MAX_MB/)
      yield* tick(25)
      expect(lines).toHaveLength(2)
      // The minute since the first line has passed: the sweep (every 5 s) sums the three that came after it.
      yield* tick(10)
      expect(lines).toHaveLength(3)
      expect(lines[2]).toMatch(/^webhooks: 3 deliveries rejected in the last minute: bad or missing signature/)
      yield* tick(120)
      expect(lines).toHaveLength(3)
      // Quiet for over a minute: the next one is said at once again.
      yield* rejections.record("signature", "shop", "a detail")
      expect(lines).toHaveLength(4)
      expect(lines[3]).toContain("1 delivery rejected in the last minute: bad or missing signature (401) (last: a detail); ")
    }).pipe(Effect.provide(collecting(lines, false)))
  })

  it.scoped("logs a cause at most once per SHOPSYNC_WEBHOOK_LOG_EVERY when it is set, naming that window", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      const rejections = yield* WebhookRejections
      for (let i = 0; i < 3; i++) yield* rejections.record("headers", "shop")
      expect(lines).toEqual([expect.stringMatching(/^webhooks: 1 delivery rejected in the last 10 seconds: no webhook topic or id header \(400\); /)])
      yield* tick(9)
      expect(lines).toHaveLength(1)
      // Ten seconds since the first line: the sweep (every 2 s, a fifth of the window) sums the two after it.
      yield* tick(2)
      expect(lines).toHaveLength(2)
      expect(lines[1]).toMatch(/^webhooks: 2 deliveries rejected in the last 10 seconds: no webhook topic or id header/)
    }).pipe(
      Effect.provide(collecting(lines, false)),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SHOPSYNC_WEBHOOK_LOG_EVERY", "10s"]])))
    )
  })

  it.scoped("logs deliveries that cannot be applied by the same rule, under their own cause, without counting them", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      const rejections = yield* WebhookRejections
      const series = Metric.tagged(webhookRejections, "cause", "unapplicable")
      const before = (yield* Metric.value(series)).count
      for (let i = 1; i <= 50; i++) yield* rejections.unapplicable(`delivery ${i} of store shop (coupon.updated): topic coupon.updated is not one shopsync applies`)
      yield* rejections.record("signature", "shop")
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/^webhooks: 1 delivery rejected in the last minute: stored, but not applicable .*\(last: delivery 1 of store shop \(coupon\.updated\): topic coupon\.updated is not one shopsync applies\); .*sync\.webhook_inbox/)
      yield* tick(60)
      expect(lines).toHaveLength(3)
      expect(lines[2]).toMatch(/^webhooks: 49 deliveries rejected in the last minute: stored, but not applicable .*\(last: delivery 50 of store shop /)
      // The inbox counts them (failed): neither the page's rejections nor /metrics' rejections_total do.
      expect(yield* rejections.counts("shop")).toEqual([{ cause: "signature", count: 1 }])
      expect((yield* Metric.value(series)).count).toBe(before)
    }).pipe(Effect.provide(collecting(lines, false)))
  })

  it.scoped("counts per store and cause, as the counter /metrics exports", () =>
    Effect.gen(function*() {
      const rejections = yield* WebhookRejections
      const series = (cause: string, store: string) => Metric.tagged(Metric.tagged(webhookRejections, "cause", cause), "store", store)
      const before = (yield* Metric.value(series("too_large", "unit-a"))).count
      yield* rejections.record("too_large", "unit-a")
      yield* rejections.record("too_large", "unit-a")
      yield* rejections.record("headers", "unit-a")
      yield* rejections.record("too_large", "unit-b")
      expect(yield* rejections.counts("unit-a")).toEqual([{ cause: "too_large", count: 2 }, { cause: "headers", count: 1 }])
      expect(yield* rejections.counts("unit-b")).toEqual([{ cause: "too_large", count: 1 }])
      expect(yield* rejections.counts("unit-c")).toEqual([])
      expect((yield* Metric.value(series("too_large", "unit-a"))).count - before).toBe(2)
    }).pipe(Effect.provide(collecting([], true))))
})
