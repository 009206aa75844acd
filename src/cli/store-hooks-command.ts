import { Command, Options } from "@effect/cli"
import { Config, Effect } from "effect"
import { storeSettingsConfig } from "../config/settings.js"
import { StoreClient } from "../store-client/client.js"
import { ensureWebhooks, listWebhooks, removeWebhooks, SUBSCRIBED_TOPICS } from "../store-client/webhooks.js"
import { storeClientLayer } from "../jobs/layers.js"
import { formatTable } from "../jobs/table.js"

const url = Options.text("url").pipe(
  Options.withDescription("the URL the store delivers to: where `shopsync serve` is reachable from the store, ending in /webhooks/store")
)

/** Runs `body` with a store client built from the configuration. */
const withStore = <A, E>(body: Effect.Effect<A, E, StoreClient>) =>
  Effect.flatMap(storeSettingsConfig, (settings) => body.pipe(Effect.provide(storeClientLayer(settings))))

const listCommand = Command.make("list", {}, () =>
  withStore(Effect.gen(function*() {
    const hooks = yield* listWebhooks
    const rows = hooks.map((h) => ({ topic: h.topic, url: h.delivery_url, status: h.status, id: h.id }))
    process.stdout.write(rows.length === 0 ? "no webhooks\n" : `${formatTable(rows, ["topic", "url", "status", "id"])}\n`)
  }))).pipe(Command.withDescription("Lists the store's webhooks: topic, delivery URL, status (active, paused, disabled) and id."))

const ensureCommand = Command.make("ensure", { url }, (o) =>
  withStore(Effect.gen(function*() {
    // Required here: the store signs every delivery with it and `shopsync serve` checks it.
    const secret = yield* Config.redacted("STORE_WEBHOOK_SECRET")
    const results = yield* ensureWebhooks(o.url, secret)
    for (const r of results) {
      const extra = r.removedDuplicates.length > 0 ? `; removed duplicate(s) ${r.removedDuplicates.join(", ")}` : ""
      process.stdout.write(`${r.topic}: webhook ${r.id} ${r.action}${extra}\n`)
    }
  }))).pipe(
    Command.withDescription(
      `Subscribes the store's webhooks for ${SUBSCRIBED_TOPICS.join(", ")} to --url, signed with STORE_WEBHOOK_SECRET. ` +
        "Idempotent: creates the missing ones, re-activates paused or disabled ones (the store disables a webhook after 5 " +
        "failed deliveries), deletes duplicates. To change the secret, run remove then ensure."
    )
  )

const removeCommand = Command.make("remove", { url }, (o) =>
  withStore(Effect.gen(function*() {
    const removed = yield* removeWebhooks(o.url)
    process.stdout.write(removed.length === 0 ? `no webhook delivers to ${o.url}\n` : `removed webhook(s) ${removed.join(", ")}\n`)
  }))).pipe(Command.withDescription("Deletes every store webhook that delivers to --url."))

export const storeHooksCommand = Command.make("store-hooks").pipe(
  Command.withDescription(
    "Lists, ensures or removes the store's webhook subscriptions that feed `shopsync serve`. They use STORE_API_URL, STORE_CONSUMER_KEY and " +
      "STORE_CONSUMER_SECRET; the key's user needs the manage_woocommerce capability."
  ),
  Command.withSubcommands([listCommand, ensureCommand, removeCommand])
)
