import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { marketingSettingsConfig } from "../config/settings.js"
import { MarketingClient } from "../marketing-client/client.js"
import { ensureHook, removeHooks } from "../marketing-client/hooks.js"
import { marketingLayer } from "../jobs/layers.js"
import { formatTable } from "../jobs/table.js"

const url = Options.text("url").pipe(Options.withPseudoName("URL"), Options.withDescription("the URL the service delivers the webhook to"))
const triggers = Options.text("triggers").pipe(
  Options.withPseudoName("LIST"),
  Options.withDescription("comma-separated trigger types, e.g. mautic.lead_post_save_new,mautic.lead_post_save_update")
)
const name = Options.text("name").pipe(Options.withPseudoName("NAME"), Options.withDescription("name of a webhook created by ensure (default: shopsync <url>)"), Options.optional)

/** Runs `body` with a marketing client built from the configuration. */
const withClient = <A, E>(body: Effect.Effect<A, E, MarketingClient>) =>
  Effect.flatMap(marketingSettingsConfig, (settings) => body.pipe(Effect.provide(marketingLayer(settings))))

const listCommand = Command.make("list", {}, () =>
  withClient(Effect.gen(function*() {
    const hooks = yield* (yield* MarketingClient).listHooks
    const rows = hooks.map((h) => ({ id: h.id, name: h.name, published: h.isPublished ? "yes" : "no", url: h.webhookUrl, triggers: h.triggers.join(",") }))
    process.stdout.write(rows.length === 0 ? "no webhooks\n" : `${formatTable(rows, ["id", "name", "published", "url", "triggers"])}\n`)
  }))).pipe(Command.withDescription("Lists the marketing service's webhooks."))

const ensureCommand = Command.make("ensure", { url, triggers, name }, (o) =>
  withClient(Effect.gen(function*() {
    const wanted = o.triggers.split(",").map((t) => t.trim()).filter((t) => t !== "")
    const result = yield* ensureHook({ url: o.url, triggers: wanted, ...(Option.isSome(o.name) ? { name: o.name.value } : {}) })
    const extra = result.removedDuplicates.length > 0 ? `; removed duplicate(s) ${result.removedDuplicates.join(", ")}` : ""
    process.stdout.write(`webhook ${result.hook.id} ${result.action}: ${o.url} on ${result.hook.triggers.join(",")}${extra}\n`)
  }))).pipe(
    Command.withDescription(
      "Makes sure exactly one published webhook with this URL fires on exactly these triggers: creates it, repairs it, or leaves it. Idempotent."
    )
  )

const removeCommand = Command.make("remove", { url }, (o) =>
  withClient(Effect.gen(function*() {
    const removed = yield* removeHooks(o.url)
    process.stdout.write(removed.length === 0 ? `no webhook with URL ${o.url}\n` : `removed webhook(s) ${removed.join(", ")}\n`)
  }))).pipe(Command.withDescription("Deletes every webhook with this URL."))

export const marketingHooksCommand = Command.make("marketing-hooks").pipe(
  Command.withDescription(
    "Lists, ensures or removes the marketing service's webhooks. Uses MARKETING_BASE_URL, MARKETING_CLIENT_ID and MARKETING_CLIENT_SECRET."
  ),
  Command.withSubcommands([listCommand, ensureCommand, removeCommand])
)
