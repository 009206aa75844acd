import { Command, Options } from "@effect/cli"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer } from "effect"
import { type MarketingSettings, marketingSettingsConfig } from "../config/settings.js"
import { MarketingLive } from "../marketing-client/client.js"
import { OutboxLive } from "../contacts/outbox.js"
import { pushContacts, type PushResult } from "../contacts/push.js"
import { logOutcome } from "../sync/outcome.js"
import { DatabaseLive } from "../warehouse/database.js"
import { forStore } from "./errors.js"

/** The marketing client over undici. */
export const marketingLayer = (settings: MarketingSettings) => MarketingLive(settings).pipe(Layer.provide(NodeHttpClient.layerUndici))

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : word.endsWith("ch") ? "es" : "s"}`

/**
 * The push's outcome as one log line (`outcome` succeeded, partial_failure when the service refused contacts,
 * failed when it gave up, skipped_locked; `sent`, `failed`, `quarantined`, `pending`) and its figures on stdout;
 * a push that gave up fails afterwards, saying what stays pending.
 */
export const reportPush = (result: PushResult) =>
  Effect.gen(function*() {
    const o = result.outbox
    const fields = {
      command: "push", sent: result.created + result.updated, failed: result.failed, quarantined: result.quarantined, pending: o.pending
    }
    if (result.skipped) {
      process.stdout.write("marketing push: another push of this store is running; nothing done\n")
      const message = "marketing push skipped: another push of this store is running; nothing done"
      return yield* logOutcome("warning", message, { ...fields, outcome: "skipped_locked" })
    }
    process.stdout.write(
      `marketing push: ${plural(result.derived, "contact")} derived; ${result.created} created, ${result.updated} updated, ` +
        `${result.unchanged} unchanged, ${result.failed} failed, ${result.quarantined} quarantined\n` +
        `  ${plural(result.batches, "batch")}, ${plural(result.requests, "request")}, ${plural(result.tokenRequests, "token request")}; ` +
        `outbox: ${o.pending} pending, ${o.sent} sent, ${o.failed} failed, ${o.quarantined} quarantined\n`
    )
    const figures = `${fields.sent} sent, ${result.failed} refused, ${result.quarantined} quarantined, ${o.pending} pending`
    if (result.gaveUp !== undefined) {
      const gaveUp = new Error(`marketing push gave up (${result.gaveUp}); ${o.pending} contact(s) stay pending for the next run`)
      yield* logOutcome("error", `${gaveUp.message} (${figures})`, { ...fields, outcome: "failed", error: gaveUp.message }, gaveUp)
      return yield* Effect.fail(gaveUp)
    }
    yield* result.failed > 0
      ? logOutcome("error", `marketing push: the service refused ${plural(result.failed, "contact")} (${figures}); \`status\` says why`, {
        ...fields, outcome: "partial_failure"
      })
      : logOutcome("info", `marketing push succeeded: ${figures}`, { ...fields, outcome: "succeeded" })
  })

/** Enqueue and send, against the configured warehouse (whose outbox the caller provides). */
export const runPush = (settings: MarketingSettings, storeId: string, retryFailed = false) =>
  pushContacts({ storeId, retryFailed }).pipe(Effect.provide(marketingLayer(settings)))

const retryFailed = Options.boolean("retry-failed").pipe(
  Options.withDescription("send again the contacts the service refused before (after fixing the cause)")
)

export const pushCommand = Command.make("push", { retryFailed }, (o) =>
  forStore("push", (storeId) =>
    Effect.gen(function*() {
      const settings = yield* marketingSettingsConfig
      yield* reportPush(yield* runPush(settings, storeId, o.retryFailed))
    }).pipe(Effect.provide(OutboxLive.pipe(Layer.provideMerge(DatabaseLive)))))).pipe(
    Command.withDescription(
      "Pushes the contacts whose state changed to the marketing service. " +
        "Derives one contact per email from the warehouse (registered customers and billing emails of counted orders), " +
        "enqueues those whose state changed and upserts them into the marketing service (POST /api/contacts/batch/new, " +
        "at most 200 a batch, client-credentials token). Needs MARKETING_BASE_URL, MARKETING_CLIENT_ID, MARKETING_CLIENT_SECRET. " +
        "Idempotent: with nothing changed it sends nothing."
    )
  )
