import { Command, Options } from "@effect/cli"
import { Effect, Option, Redacted } from "effect"
import { checkStoreKey } from "../jobs/key-check.js"
import { loadMasterKey } from "../stores/master-key.js"
import { type StoreChanges, StoreRegistry } from "../stores/registry.js"
import { migrate } from "../warehouse/migrate.js"
import {
  everyOption,
  formatEvery,
  invalid,
  key,
  noCheck,
  readConsumerSecret,
  readOtherSecrets,
  registryLayer,
  secretSources,
  storeIdArg,
  url
} from "./stores-add.js"

/** The options of `stores set`: every one optional, at least one given (else exit 64 before anything runs). */
const changeOptions = Options.all({
  url: Options.optional(url),
  every: Options.optional(everyOption(false)),
  // A new key comes with its secret: standard input holds it unless --secret-env names a variable.
  sources: secretSources(Options.optional(key), (k, env) => Option.isSome(k) && Option.isNone(env))
}).pipe(Options.mapEffect((o) =>
  Option.isNone(o.url) && Option.isNone(o.every) && Option.isNone(o.sources.key) && Option.isNone(o.sources.secretEnv) &&
    Option.isNone(o.sources.webhookSecretEnv) && !o.sources.marketing
    ? invalid("nothing to change: give --url, --key (its secret on standard input or from --secret-env), --secret-env, --every, " +
      "--webhook-secret-env or a marketing service (--marketing-url, --marketing-client-id and its secret)")
    : Effect.succeed(o)))

type Change = typeof changeOptions extends Options.Options<infer A> ? A : never

/** What changed, in words: "its URL, consumer key and interval (every 10m)". */
const changedText = (o: Change, consumerSecret: boolean) => {
  const parts = [
    Option.isSome(o.url) ? "URL" : "",
    Option.isSome(o.sources.key) ? "consumer key" : "",
    consumerSecret ? "consumer secret" : "",
    Option.isSome(o.sources.webhookSecretEnv) ? "webhook secret" : "",
    o.sources.marketing ? "marketing service" : "",
    Option.match(o.every, { onNone: () => "", onSome: (ms) => `interval (every ${formatEvery(ms)})` })
  ].filter((p) => p !== "")
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`
}

/**
 * Changes what the options name. A new URL, key or consumer secret is tried first with the store's registered values
 * for the rest (a refusal saves nothing; --no-check skips it); secrets are sealed anew under the master key.
 */
const setStore = (storeId: string, o: Change, skipCheck: boolean) =>
  Effect.gen(function*() {
    const s = o.sources
    const newSecret = Option.isSome(s.key) || Option.isSome(s.secretEnv)
    const check = !skipCheck && (Option.isSome(o.url) || newSecret)
    if (check || newSecret || Option.isSome(s.webhookSecretEnv) || s.marketing) yield* loadMasterKey("`shopsync stores set` with new secrets or a key to try")
    const consumerSecret = newSecret ? Option.some(yield* readConsumerSecret(s, "set")) : Option.none()
    const others = yield* readOtherSecrets(s, "set")
    yield* migrate
    const registry = yield* StoreRegistry
    if (check) {
      const current = yield* registry.get(storeId)
      yield* checkStoreKey({
        storeId,
        apiUrl: Option.getOrElse(o.url, () => current.apiUrl),
        consumerKey: Option.match(s.key, { onNone: () => current.consumerKey, onSome: Redacted.make }),
        consumerSecret: Option.getOrElse(consumerSecret, () => current.consumerSecret)
      }, "set")
    }
    const changes: StoreChanges = { apiUrl: o.url, consumerKey: s.key, consumerSecret, everyMs: o.every, ...others }
    yield* registry.update(storeId, changes)
    const tried = check ? "; the store accepted the key" : skipCheck ? " (key not tried: --no-check)" : ""
    process.stdout.write(`store ${storeId}: changed its ${changedText(o, newSecret)}${tried}. Running workers take it at the ` +
      "store's next sync (a new interval within 5 s); its checkpoints and rows stay\n")
  }).pipe(Effect.provide(registryLayer))

export const setCommand = Command.make("set", { storeId: storeIdArg, change: changeOptions, noCheck }, (o) => setStore(o.storeId, o.change, o.noCheck)).pipe(
  Command.withDescription(
    "Changes a registered store: its API root (--url), consumer key (--key, its secret on standard input or from " +
      "--secret-env NAME; --secret-env alone changes only the secret), sync interval (--every 10m), webhook secret " +
      "(--webhook-secret-env) or marketing service (--marketing-url, --marketing-client-id and its secret from " +
      "--marketing-secret-env or standard input). A new URL, key or secret is tried first, as `stores add` does (GET " +
      "/orders?per_page=1 with the other values as registered); a refusal changes nothing, --no-check skips it. Its " +
      "checkpoints and rows stay; running workers take the change without a restart. Only --every needs no master key. " +
      "Example: printf '%s\\n' \"$SECRET\" | shopsync stores set shop1 --key ck_…"
  )
)
