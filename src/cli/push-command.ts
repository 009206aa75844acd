import { Command, Options } from "@effect/cli"
import { Effect, Layer } from "effect"
import { marketingSettingsConfig } from "../config/settings.js"
import { StoreJobs } from "../jobs/store-jobs.js"
import { DatabaseLive } from "../warehouse/database.js"
import { forStore } from "./errors.js"
import { reportPush } from "./summary.js"

const retryFailed = Options.boolean("retry-failed").pipe(
  Options.withDescription("send again the contacts the service refused before (after fixing the cause)")
)

export const pushCommand = Command.make("push", { retryFailed }, (o) =>
  forStore("push", (storeId) =>
    Effect.gen(function*() {
      const settings = yield* marketingSettingsConfig
      yield* reportPush(yield* (yield* StoreJobs).push(storeId, settings, o.retryFailed))
    }).pipe(Effect.provide(StoreJobs.Default.pipe(Layer.provideMerge(DatabaseLive)))))).pipe(
    Command.withDescription(
      "Pushes the contacts whose state changed to the marketing service. " +
        "Derives one contact per email from the warehouse (registered customers and billing emails of counted orders), " +
        "enqueues those whose state changed and upserts them into the marketing service (POST /api/contacts/batch/new, " +
        "at most 200 a batch, client-credentials token). Needs MARKETING_BASE_URL, MARKETING_CLIENT_ID, MARKETING_CLIENT_SECRET. " +
        "Idempotent: with nothing changed it sends nothing."
    )
  )
