import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { STREAMS, SALES_STREAMS } from "../sync/catalogue.js"
import { loadKeyRing } from "../stores/master-key.js"
import { type StoreListing, StoreRegistry } from "../stores/registry.js"
import { runRegistered } from "../jobs/registered.js"
import { type StoreJob, StoreJobs } from "../jobs/store-jobs.js"
import { migrate } from "../warehouse/migrate.js"
import { period } from "./backfill-command.js"
import { forStoreId } from "./errors.js"
import { addCommand, formatEvery, registryLayer, storeIdArg } from "./stores-add.js"
import { setCommand } from "./stores-set.js"
import { selectedStreams, streamsOption } from "./streams-option.js"
import { shopsyncCommand } from "./invocation.js"
import { isoUtc } from "./timestamps.js"
import { printRegisteredReport } from "./summary.js"
import { formatTable } from "../jobs/table.js"

const out = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

/** A registry row as `stores list --json` prints it (times ISO 8601 UTC): never a secret, only whether one is set. */
const asJson = (s: StoreListing) => ({
  store_id: s.storeId,
  api_url: s.apiUrl,
  enabled: s.enabled,
  every: formatEvery(s.everyMs),
  every_seconds: s.everyMs / 1000,
  webhook_secret_set: s.hasWebhookSecret,
  marketing_url: s.marketingUrl,
  created_at: isoUtc(s.createdAt),
  updated_at: isoUtc(s.updatedAt),
  last_success_at: isoUtc(s.lastSuccessAt),
  last_error: s.lastError,
  last_error_at: isoUtc(s.lastErrorAt),
  runner: s.runner
})

const json = Options.boolean("json").pipe(Options.withDescription("print the stores as a JSON array (one object per store) instead of a table"))

const listCommand = Command.make("list", { json }, (o) =>
  Effect.gen(function*() {
    yield* migrate
    const stores = yield* Effect.flatMap(StoreRegistry, (r) => r.list)
    if (o.json) return yield* out(JSON.stringify(stores.map(asJson), null, 2))
    if (stores.length === 0) return yield* out(`no stores registered; add one with \`${shopsyncCommand()} stores add <store_id> --url … --key …\``)
    const rows = stores.map((s) => ({
      ...asJson(s),
      enabled: s.enabled ? "yes" : "paused",
      last_success_at: s.lastSuccessAt ?? "never",
      runner: s.runner ?? "-"
    }))
    yield* out(formatTable(rows, ["store_id", "enabled", "every", "last_success_at", "last_error", "runner", "api_url"]))
  }).pipe(Effect.provide(registryLayer))).pipe(Command.withDescription(
    "Lists the registered stores: id, whether enabled or paused, sync interval, when the last sync succeeded, the last " +
      "error (empty once a sync succeeds), the runner that last ran it (- for a command run on its own) and the API root. " +
      "Never shows a secret; needs no master key."
  ))

/** A one-store registry change, its line of output once done. */
const change = (name: string, description: string, act: (registry: StoreRegistry, id: string) => Effect.Effect<string, unknown>) =>
  Command.make(name, { storeId: storeIdArg }, ({ storeId }) =>
    Effect.gen(function*() {
      yield* migrate
      yield* out(yield* act(yield* StoreRegistry, storeId))
    }).pipe(Effect.provide(registryLayer))).pipe(Command.withDescription(description))

const removeCommand = change(
  "remove",
  "Removes a store from the registry: it is no longer synced, and its keys are deleted. The store's rows in the warehouse " +
    "stay (its orders, refunds, daily sales…, under its store id); adding it again later carries on from them.",
  (registry, id) => Effect.as(registry.remove(id), `removed store ${id} from the registry; its rows in the warehouse stay (store_id = '${id}')`)
)

const pauseCommand = change(
  "pause",
  "Pauses a store: no scheduled syncs until `stores resume`. Its rows and settings stay; `stores sync` still syncs it on demand.",
  (registry, id) => Effect.as(registry.setEnabled(id, false), `paused store ${id}: no scheduled syncs until \`shopsync stores resume ${id}\``)
)

const resumeCommand = change(
  "resume",
  "Resumes a paused store: its scheduled syncs start again at its interval.",
  (registry, id) => Effect.as(registry.setEnabled(id, true), `resumed store ${id}: its scheduled syncs start again`)
)

const rotateKeyCommand = Command.make("rotate-key", {}, () =>
  Effect.gen(function*() {
    // Both keys are read first: without a master key there is nothing to reseal under, even with no store yet.
    const ring = yield* loadKeyRing("`shopsync stores rotate-key`")
    yield* migrate
    const done = yield* Effect.flatMap(StoreRegistry, (r) => r.rotate)
    if (done.stores === 0) return yield* out("no store is registered: nothing to reseal")
    const under = `${done.secrets} secret${done.secrets === 1 ? "" : "s"} of ${done.stores} store${done.stores === 1 ? "" : "s"}`
    yield* out(done.resealed === 0
      ? `nothing to reseal: all ${under} open with SHOPSYNC_MASTER_KEY`
      : `resealed ${done.resealed} of ${under} under SHOPSYNC_MASTER_KEY (the others already were)`)
    if (Option.isSome(ring.previous)) {
      yield* out("every secret now opens with SHOPSYNC_MASTER_KEY alone: remove SHOPSYNC_PREVIOUS_MASTER_KEY(_FILE) from every worker and command, then retire the old key")
    }
  }).pipe(Effect.provide(registryLayer))).pipe(Command.withDescription(
    "Moves the registry's secrets to a new master key without downtime: (1) give every worker and command the new key " +
      "as SHOPSYNC_MASTER_KEY and the old one as SHOPSYNC_PREVIOUS_MASTER_KEY (or the _FILE variables) and restart them " +
      "(they open secrets sealed under either key); (2) run this: it reseals, in one transaction, every secret the old " +
      "key sealed under the new one; (3) remove SHOPSYNC_PREVIOUS_MASTER_KEY everywhere. Running it again is harmless. " +
      "A secret neither key opens fails it whole (exit 1, naming the store), leaving every row as it was."
  ))

const noPush = Options.boolean("no-push").pipe(
  Options.withDescription("do not push contacts to the store's marketing service after the sync")
)
const wait = Options.boolean("wait").pipe(
  Options.withDescription("if another run holds this store's lock, wait for it instead of exiting")
)

/** Runs a job of a registered store here and prints what `shopsync sync`/`backfill` print (the push, the summary). */
const runHere = (storeId: string, job: StoreJob, push: boolean) =>
  Effect.flatMap(runRegistered(storeId, job, push ? "push" : "none", Option.none()), printRegisteredReport).pipe(Effect.provide(StoreJobs.Default))

const here = Options.boolean("here").pipe(
  Options.withDescription("run it in this process even when workers are running (they skip the store while it runs)")
)

/**
 * Through the cluster when a worker is running and the job is the one a worker runs (every stream, the push): the
 * worker holding the store's shard runs it between the store's scheduled syncs, never beside one. Here otherwise.
 * stores-cluster.ts (and with it @effect/cluster) is loaded only here, not at every command's start.
 */
const dispatch = (command: "sync" | "backfill", storeId: string, forceHere: boolean, job: StoreJob, push: boolean) =>
  forStoreId(command, storeId, Effect.gen(function*() {
    const cluster = yield* Effect.promise(() => import("./stores-cluster.js"))
    const workers = forceHere ? 0 : yield* cluster.runningWorkers
    if (workers === 0) {
      yield* Effect.logInfo(`stores ${command}: running here (${forceHere ? "--here" : "no worker is running"})`)
      return yield* runHere(storeId, job, push)
    }
    yield* Effect.logInfo(`stores ${command}: through the cluster (${workers} worker${workers === 1 ? "" : "s"} running)`)
    yield* cluster.runThroughCluster(storeId, job.mode)
  }).pipe(Effect.provide(registryLayer)))

const syncCommand = Command.make("sync", { storeId: storeIdArg, streams: streamsOption("all"), wait, noPush, here }, (o) =>
  Effect.gen(function*() {
    const streams = selectedStreams(o.streams, STREAMS)
    const job = { streams, mode: { kind: "sync" }, waitForLock: o.wait, named: Option.isSome(o.streams) } as const
    yield* dispatch("sync", o.storeId, o.here || Option.isSome(o.streams) || o.noPush, job, !o.noPush)
  })).pipe(Command.withDescription(
    "Syncs a registered store now with its registered settings: the same run as `shopsync sync` (incremental, under the " +
      "store's lock), then the contact push when the store has a marketing service. When a worker is running " +
      "(`shopsync worker`), the worker holding the store runs it and this command prints its outcome; otherwise, or with " +
      "--here, --streams or --no-push, it runs in this process. Records the outcome in the registry (last_success_at, " +
      "last_error, runner). Works on a paused store too. Exit codes as `shopsync sync`."
  ))

const backfillCommand = Command.make("backfill", { storeId: storeIdArg, period, streams: streamsOption(SALES_STREAMS.join(",")), here }, (o) =>
  Effect.gen(function*() {
    const streams = selectedStreams(o.streams, SALES_STREAMS)
    const mode = { kind: "backfill", since: o.period.since, until: o.period.until } as const
    const job = { streams, mode, waitForLock: true, named: Option.isSome(o.streams) }
    yield* dispatch("backfill", o.storeId, o.here || Option.isSome(o.streams), job, false)
  })).pipe(Command.withDescription(
    "Re-reads a period of a registered store's history (--since, --until: store-local days), as `shopsync backfill` does " +
      "for the STORE_* store: for a first load of history or to repair a period. Waits for a running sync of the store. " +
      "Through the cluster when a worker is running (unless --here or --streams), as `stores sync`."
  ))

export const storesCommand = Command.make("stores").pipe(
  Command.withDescription(
    "Many stores in one warehouse: a registry of stores (sync.store_registry), each with its API root, keys (encrypted " +
      "under SHOPSYNC_MASTER_KEY), sync interval and optional webhook secret and marketing service. `add` registers one, " +
      "`list` shows them, `set`/`pause`/`resume`/`remove` change them, `sync` and `backfill` run one now, `rotate-key` moves the secrets to a new master key. The STORE_* variables " +
      "and the single-store commands are not involved."
  ),
  Command.withSubcommands([addCommand, listCommand, setCommand, removeCommand, pauseCommand, resumeCommand, syncCommand, backfillCommand, rotateKeyCommand])
)
