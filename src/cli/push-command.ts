import { Command, Options } from "@effect/cli"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer } from "effect"
import { type MarketingSettings, marketingSettingsConfig, storeIdConfig } from "../config/settings.js"
import { MarketingLive } from "../marketing-client/client.js"
import { OutboxLive } from "../contacts/outbox.js"
import { pushContacts, type PushResult } from "../contacts/push.js"
import { DatabaseLive } from "../warehouse/database.js"

/** The marketing client over undici. */
export const marketingLayer = (settings: MarketingSettings) => MarketingLive(settings).pipe(Layer.provide(NodeHttpClient.layerUndici))

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : word.endsWith("ch") ? "es" : "s"}`

/** The push's figures on stdout; a run that gave up fails after saying what stays pending. */
export const reportPush = (result: PushResult) =>
  Effect.gen(function*() {
    if (result.skipped) {
      process.stdout.write("marketing push: another push of this store is running; nothing done\n")
      return
    }
    const o = result.outbox
    process.stdout.write(
      `marketing push: ${plural(result.derived, "contact")} derived; ${result.created} created, ${result.updated} updated, ` +
        `${result.unchanged} unchanged, ${result.failed} failed, ${result.quarantined} quarantined\n` +
        `  ${plural(result.batches, "batch")}, ${plural(result.requests, "request")}, ${plural(result.tokenRequests, "token request")}; ` +
        `outbox: ${o.pending} pending, ${o.sent} sent, ${o.failed} failed, ${o.quarantined} quarantined\n`
    )
    if (result.gaveUp !== undefined) {
      return yield* Effect.fail(new Error(`marketing push gave up (${result.gaveUp}); ${o.pending} contact(s) stay pending for the next run`))
    }
  })

/** Enqueue and send, against the configured warehouse (whose outbox the caller provides). */
export const runPush = (settings: MarketingSettings, storeId: string, retryFailed = false) =>
  pushContacts({ storeId, retryFailed }).pipe(Effect.provide(marketingLayer(settings)))

const retryFailed = Options.boolean("retry-failed").pipe(
  Options.withDescription("send again the contacts the service refused before (after fixing the cause)")
)

export const pushCommand = Command.make("push", { retryFailed }, (o) =>
  Effect.gen(function*() {
    const settings = yield* marketingSettingsConfig
    const storeId = yield* storeIdConfig
    yield* reportPush(yield* runPush(settings, storeId, o.retryFailed))
  }).pipe(Effect.provide(OutboxLive.pipe(Layer.provideMerge(DatabaseLive))))).pipe(
    Command.withDescription(
      "Pushes the contacts whose state changed to the marketing service. " +
        "Derives one contact per email from the warehouse (registered customers and billing emails of counted orders), " +
        "enqueues those whose state changed and upserts them into the marketing service (POST /api/contacts/batch/new, " +
        "at most 200 a batch, client-credentials token). Needs MARKETING_BASE_URL, MARKETING_CLIENT_ID, MARKETING_CLIENT_SECRET. " +
        "Idempotent: with nothing changed it sends nothing."
    )
  )
