import { Args, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Data, Effect, Layer, Option, Redacted } from "effect"
import { isStoreApiRoot, marketingUrlProblem, normalMarketingUrl, parseDurationMs } from "../config/settings.js"
import { loadMasterKey } from "../stores/master-key.js"
import { checkStoreKey } from "../jobs/key-check.js"
import { StoreRegistry } from "../stores/registry.js"
import { DatabaseLive } from "../warehouse/database.js"
import { migrate } from "../warehouse/migrate.js"
import { shopsyncCommand } from "./invocation.js"

/** A stores command that cannot do what it was asked: what is wrong and what to do. */
export class StoresCommandFailed extends Data.TaggedError("StoresCommandFailed")<{ readonly problem: string; readonly fix: string }> {
  override get message() {
    return `${this.problem}; ${this.fix}`
  }
}

/** The registry over the configured warehouse (DATABASE_URL, else embedded), started only when a command needs it. */
export const registryLayer = StoreRegistry.Default.pipe(Layer.provideMerge(DatabaseLive))

export const invalid = (text: string) => Effect.fail(ValidationError.invalidValue(HelpDoc.p(text)))

/** A store id as STORE_ID takes it: it becomes the store_id of the store's rows in the warehouse. */
export const storeIdArg = Args.text({ name: "store_id" }).pipe(
  Args.withDescription("the store's id: 1-64 letters, digits, '.', '_' or '-'; every row of the store in the warehouse carries it"),
  Args.mapEffect((id) =>
    /^[\w.-]{1,64}$/.test(id) ? Effect.succeed(id) : Effect.fail(HelpDoc.p(`store id "${id}" must be 1-64 characters of letters, digits, '.', '_' or '-'`)))
)

export const url = Options.text("url").pipe(
  Options.withPseudoName("URL"),
  Options.withDescription("the store's REST API root, ending in /v3 (for example https://shop.example/wp-json/wc/v3)"),
  Options.mapEffect((u) => isStoreApiRoot(u.trim()) ? Effect.succeed(u.trim().replace(/\/$/, "")) : invalid(`--url must be the store API root ending in /v3 (for example https://shop.example/wp-json/wc/v3), got "${u}"`))
)

export const key = Options.text("key").pipe(
  Options.withPseudoName("CONSUMER_KEY"),
  Options.withDescription("the REST API consumer key (ck_…); its consumer secret is read from standard input, or from --secret-env")
)

const envName = (name: string, description: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("NAME"),
    Options.withDescription(description),
    Options.mapEffect((n) => /^[A-Za-z_]\w*$/.test(n) ? Effect.succeed(n) : invalid(`--${name} takes an environment variable's name, got "${n}"`)),
    Options.optional
  )

const parseEvery = (text: string) => {
  const ms = parseDurationMs(text)
  return ms !== undefined && ms >= 1000 ? Effect.succeed(ms) : invalid(`--every must be a duration of at least 1s, such as 5m, 90s, 1h or a number of seconds, got "${text}"`)
}

/** --every in milliseconds: with a default of 5 minutes for `add`, required for `set`. */
export const everyOption = (withDefault: boolean) => {
  const text = Options.text("every").pipe(
    Options.withPseudoName("DURATION"),
    Options.withDescription(`how often the store is synced: 5m, 90s, 1h or a number of seconds${withDefault ? " (default 5m)" : ""}`)
  )
  return (withDefault ? text.pipe(Options.withDefault("5m")) : text).pipe(Options.mapEffect(parseEvery))
}

const every = everyOption(true)

const marketingUrl = Options.text("marketing-url").pipe(
  Options.withPseudoName("URL"),
  Options.withDescription("the marketing service's root URL this store's contacts are pushed to (without /api); needs --marketing-client-id"),
  Options.mapEffect((u) => {
    const problem = marketingUrlProblem("--marketing-url", normalMarketingUrl(u))
    return problem === undefined ? Effect.succeed(normalMarketingUrl(u)) : invalid(problem)
  }),
  Options.optional
)

const marketingClientId = Options.text("marketing-client-id").pipe(
  Options.withPseudoName("ID"),
  Options.withDescription("the marketing service's OAuth2 client id; its client secret comes from --marketing-secret-env, or from standard input when the consumer secret comes from --secret-env"),
  Options.optional
)

const secretEnv = envName("secret-env", "read the consumer secret from this environment variable instead of standard input")

/** Skips trying the key before saving. */
export const noCheck = Options.boolean("no-check").pipe(
  Options.withDescription("save without trying the key first (by default one request, GET /orders?per_page=1, must succeed)")
)

/**
 * The consumer key and where each secret comes from: an environment variable named on the command line, or standard
 * input (one of them at most); `consumerOnStdin` tells, from the key and --secret-env, whether the consumer secret is
 * read from standard input.
 */
export const secretSources = <K>(key: Options.Options<K>, consumerOnStdin: (key: K, secretEnv: Option.Option<string>) => boolean) =>
  Options.all({
    key,
    secretEnv,
    webhookSecretEnv: envName("webhook-secret-env", "the environment variable holding the secret the store signs its webhook deliveries with (optional)"),
    marketingUrl,
    marketingClientId,
    marketingSecretEnv: envName("marketing-secret-env", "the environment variable holding the marketing service's client secret")
  }).pipe(Options.mapEffect((o) => {
    const marketing = Option.isSome(o.marketingUrl) || Option.isSome(o.marketingClientId) || Option.isSome(o.marketingSecretEnv)
    if (marketing && (Option.isNone(o.marketingUrl) || Option.isNone(o.marketingClientId))) {
      return invalid("a marketing service needs both --marketing-url and --marketing-client-id (and its secret from --marketing-secret-env or standard input)")
    }
    const stdin = consumerOnStdin(o.key, o.secretEnv)
    if (marketing && Option.isNone(o.marketingSecretEnv) && stdin) {
      return invalid("standard input holds one secret: with the consumer secret on standard input, give the marketing secret with --marketing-secret-env " +
        "(or the consumer secret with --secret-env and the marketing secret on standard input)")
    }
    return Effect.succeed({ ...o, marketing, consumerOnStdin: stdin })
  }))

/** A line typed on the terminal without echoing it (Ctrl-C stops the command as a signal would). */
const readHidden = (prompt: string) =>
  new Promise<string>((resolve) => {
    const stdin = process.stdin
    process.stderr.write(prompt)
    stdin.setRawMode(true)
    stdin.resume()
    let text = ""
    const finish = () => {
      stdin.off("data", onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write("\n")
      resolve(text)
    }
    const onData = (data: Buffer) => {
      for (const ch of data.toString("utf8")) {
        if (ch === "\r" || ch === "\n" || ch === "\u0004") return finish()
        if (ch === "\u0003") return (finish(), void process.kill(process.pid, "SIGINT"))
        text = ch === "\u007f" ? text.slice(0, -1) : text + ch
      }
    }
    stdin.on("data", onData)
  })

/** The first line of standard input (asked for, unechoed, on a terminal); empty when nothing was piped in. */
const readLine = (prompt: string) =>
  Effect.promise(async () => {
    if (process.stdin.isTTY) return readHidden(prompt)
    let text = ""
    for await (const chunk of process.stdin) text += String(chunk)
    return text.split("\n")[0]!.replace(/\r$/, "")
  })

const fromStdin = (what: string, option: string, verb: string) =>
  Effect.flatMap(readLine(`${what}: `), (line) =>
    line.trim() === ""
      ? new StoresCommandFailed({
        problem: `standard input held no ${what}`,
        fix: `pipe it in (printf '%s\\n' "$SECRET" | shopsync stores ${verb} …) or name an environment variable holding it with ${option}`
      })
      : Effect.succeed(Redacted.make(line.trim())))

const fromEnv = (what: string, option: string, name: string) => {
  const value = process.env[name]
  return value === undefined || value.trim() === ""
    ? new StoresCommandFailed({ problem: `${option} ${name}: the environment variable is not set or empty`, fix: `export ${name} with the ${what}` })
    : Effect.succeed(Redacted.make(value.trim()))
}

type Sources = ReturnType<typeof secretSources> extends Options.Options<infer A> ? A : never

/** The consumer secret: from the variable --secret-env names, else standard input. */
export const readConsumerSecret = (s: Pick<Sources, "secretEnv">, verb: "add" | "set") =>
  Option.match(s.secretEnv, {
    onNone: () => fromStdin("consumer secret", "--secret-env", verb),
    onSome: (name) => fromEnv("consumer secret", "--secret-env", name)
  })

/** The webhook and marketing secrets the options name, read (None: not given). */
export const readOtherSecrets = (s: Sources, verb: "add" | "set") =>
  Effect.gen(function*() {
    const webhookSecret = Option.isSome(s.webhookSecretEnv)
      ? Option.some(yield* fromEnv("webhook secret", "--webhook-secret-env", s.webhookSecretEnv.value))
      : Option.none()
    const marketingSecret = !s.marketing
      ? Option.none()
      : Option.some(Option.isSome(s.marketingSecretEnv)
        ? yield* fromEnv("marketing client secret", "--marketing-secret-env", s.marketingSecretEnv.value)
        : yield* fromStdin("marketing client secret", "--marketing-secret-env", verb))
    const marketing = Option.all({ url: s.marketingUrl, clientId: Option.map(s.marketingClientId, Redacted.make), clientSecret: marketingSecret })
    return { webhookSecret, marketing }
  })

/** What a saved store has besides its address and interval, for the line saying it was saved. */
export const extrasText = (secrets: { webhookSecret: Option.Option<unknown>; marketing: Option.Option<unknown> }) => {
  const extras = [Option.isSome(secrets.webhookSecret) ? "webhook secret" : "", Option.isSome(secrets.marketing) ? "marketing service" : ""].filter((x) => x !== "")
  return extras.length > 0 ? ` (with ${extras.join(" and ")})` : ""
}

export const addCommand = Command.make("add", { storeId: storeIdArg, url, every, sources: secretSources(key, (_, env) => Option.isNone(env)), noCheck }, (o) =>
  Effect.gen(function*() {
    // Refused before anything is read or written: without the key no secret can be stored.
    yield* loadMasterKey("`shopsync stores add`")
    const consumerSecret = yield* readConsumerSecret(o.sources, "add")
    const secrets = yield* readOtherSecrets(o.sources, "add")
    const consumerKey = o.sources.key
    if (!o.noCheck) yield* checkStoreKey({ storeId: o.storeId, apiUrl: o.url, consumerKey: Redacted.make(consumerKey), consumerSecret }, "add")
    yield* Effect.flatMap(StoreRegistry, (registry) =>
      Effect.zipRight(migrate, registry.add({ storeId: o.storeId, apiUrl: o.url, consumerKey, consumerSecret, everyMs: o.every, ...secrets }))
    ).pipe(Effect.provide(registryLayer))
    process.stdout.write(
      `added store ${o.storeId}: ${o.url}${o.noCheck ? " (key not tried: --no-check)" : ", its key accepted"}, synced every ` +
        `${formatEvery(o.every)}; secrets encrypted under the master key${extrasText(secrets)}
` +
        `sync it now: ${shopsyncCommand()} stores sync ${o.storeId}; see every store: ${shopsyncCommand()} stores list
`
    )
  })).pipe(Command.withDescription(
    "Registers a store: its API root (--url, ending in /v3), consumer key (--key) and consumer secret (one line on standard " +
      "input, or --secret-env NAME), how often it is synced (--every, default 5m), optionally the secret its webhook " +
      "deliveries are signed with and the marketing service its contacts go to. The key is tried first (GET " +
      "/orders?per_page=1; a refusal saves nothing; --no-check skips it). The secrets are encrypted (AES-256-GCM) " +
      "under the master key, SHOPSYNC_MASTER_KEY or the file SHOPSYNC_MASTER_KEY_FILE names: without one, nothing is added. " +
      "Example: printf '%s\\n' \"$SECRET\" | shopsync stores add shop1 --url https://shop1.example/wp-json/wc/v3 --key ck_…"
  ))

/** A duration in its largest whole unit, as --every takes it: 5m, 90s, 1h, 1500ms. */
export const formatEvery = (ms: number): string =>
  ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
