import type * as Sharding from "@effect/cluster/Sharding"
import type * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Data, Effect, Layer, Option, type Redacted, Ref, Schedule } from "effect"
import { loadRunnerPsk, requireSecretUnlessLoopback } from "../cluster/cluster-secret.js"
import { clusterTimings } from "../cluster/runner.js"
import { heldShards, SHARDS } from "../cluster/shards.js"
import { workerLayer, workerPools } from "../cluster/worker.js"
import { adminSettingsConfig, type AdminSettings, databaseUrlConfig, httpListenConfig, inboxMaxBytesConfig, runnerSettingsConfig } from "../config/settings.js"
import { loadAdminToken, serveAdmin } from "../server/admin-listener.js"
import { type BodyBudget, listenerLayer } from "../server/listener.js"
import { PrometheusMetrics } from "../server/metrics.js"
import { WebhookSecrets } from "../server/webhook-secrets.js"
import { workerRouter } from "../server/worker-router.js"
import { Inbox } from "../webhooks/inbox.js"
import { WebhookRejectionsLive } from "../webhooks/rejections.js"
import { RegistryDirectoryLive } from "../jobs/directory.js"
import { StoreJobs } from "../jobs/store-jobs.js"
import { loadMasterKey } from "../stores/master-key.js"
import { StoreRegistry } from "../stores/registry.js"
import { describeDatabase } from "../warehouse/database.js"
import { migrate } from "../warehouse/migrate.js"

export class WorkerNeedsSharedDatabase extends Data.TaggedError("WorkerNeedsSharedDatabase")<{}> {
  override get message() {
    return "shopsync worker needs DATABASE_URL, a PostgreSQL server the workers share: they coordinate through it " +
      "(which worker holds which stores, the stores' queued work) and sync into it. On one machine the embedded warehouse " +
      "serves as that server once it runs on its own: `shopsync warehouse start`, then " +
      "`DATABASE_URL=$(npx shopsync warehouse url) npx shopsync worker`; for workers on several machines, a PostgreSQL they all reach"
  }
}

/** Logs how many shards this runner holds whenever that changes (it moves when workers join or leave). */
const ShardLogLive = Layer.scopedDiscard(Effect.gen(function*() {
  let held = -1
  const check = Effect.flatMap(heldShards, (count) => {
    if (count === held) return Effect.void
    held = count
    return Effect.logInfo(`worker: holds ${count} of ${SHARDS} shards`).pipe(Effect.annotateLogs({ shards: count }))
  })
  yield* Effect.forkScoped(Effect.repeat(check, Schedule.spaced("2 seconds")))
}))

/** The layers of a runner with its stores, on the work pool; the HTTP server is outside them (it outlives them). */
const workerLayers = (options: { runner: string; concurrency: number; clusterSql: ReturnType<typeof workerPools>["clusterSql"] }) => {
  // One layer value, so built once: the listener's refusals and the deliveries its stores cannot apply share one log tally.
  const rejections = WebhookRejectionsLive({ tagStore: true })
  // The secrets read the registry provided below, the stores' jobs' own.
  return Layer.mergeAll(WebhookSecrets.DefaultWithoutDependencies, Inbox.Default, PrometheusMetrics.Default, rejections).pipe(
    Layer.provideMerge(ShardLogLive.pipe(
      Layer.provideMerge(workerLayer({ clusterSql: options.clusterSql, concurrency: options.concurrency })),
      Layer.provide(RegistryDirectoryLive(options.runner).pipe(Layer.provide(Layer.merge(StoreJobs.Default, rejections))))
    )),
    Layer.provideMerge(StoreRegistry.Default)
  )
}

type Routes = HttpApp.Default<unknown, never>

/** What the server answers while the runner joins the cluster or after it left: 503, so a load balancer sends elsewhere. */
const notRunning = HttpServerResponse.unsafeJson({ status: "unavailable", reason: "the worker is starting or stopping; send again later" }, { status: 503 })

interface ServeWorkerOptions {
  readonly runner: string
  readonly http: { readonly host: string; readonly port: number }
  readonly admin: AdminSettings
  readonly token: Option.Option<Redacted.Redacted<string>>
  readonly concurrency: number
  readonly clusterSql: ReturnType<typeof workerPools>["clusterSql"]
}

/**
 * Serves both listeners from the start (503 until the runner has joined), then the worker's routes until stopped.
 * Finalizers run in reverse: new deliveries are refused (503), the runner finishes its running jobs and hands its
 * shards over (the layers), every route answers 503, the servers close.
 */
const serveWorker = (options: ServeWorkerOptions) =>
  Effect.gen(function*() {
    const routes = yield* Ref.make(Option.none<{ webhooks: Routes; admin: Routes }>())
    const current = (pick: (r: { webhooks: Routes; admin: Routes }) => Routes) =>
      Effect.flatMap(Ref.get(routes), Option.match({ onNone: () => Effect.succeed(notRunning), onSome: pick }))
    yield* HttpServer.serveEffect(current((r) => r.webhooks))
    yield* serveAdmin(options.admin, options.token, current((r) => r.admin),
      "stores GET /, a store's page GET /stores/<store_id>, metrics GET /metrics, health with reasons GET /healthz")
    yield* Effect.addFinalizer(() => Ref.set(routes, Option.none()))
    yield* Effect.gen(function*() {
      const accepting = yield* Ref.make(true)
      const router = yield* workerRouter({ accepting, runner: options.runner, heartbeatExpiry: clusterTimings.shardLockExpiration, inboxMaxBytes: yield* inboxMaxBytesConfig })
      const context = yield* Effect.context<HttpRouter.HttpRouter.DefaultServices | BodyBudget | SqlClient.SqlClient | PrometheusMetrics | Inbox | Sharding.Sharding>()
      yield* Ref.set(routes, Option.some({ webhooks: Effect.provide(router.webhooks, context), admin: Effect.provide(router.admin, context) }))
      yield* Effect.logInfo(
        `worker: listening on http://${options.http.host}:${options.http.port} (SHOPSYNC_HTTP_HOST:SHOPSYNC_HTTP_PORT): webhook deliveries ` +
          "POST /webhooks/store/<store_id> for every registered store, health GET /healthz"
      )
      yield* Effect.addFinalizer(() =>
        Effect.zipRight(Ref.set(accepting, false), Effect.logInfo("worker: stopping: new deliveries are refused (503); handing the shards over")))
      return yield* Effect.never
    }).pipe(Effect.scoped, Effect.provide(workerLayers(options)))
  }).pipe(Effect.scoped, Effect.provide(listenerLayer(options.http)))

/**
 * `shopsync worker` (cli/lazy-commands.ts): a runner of the cluster with the registry's stores, serving HTTP: migrates the warehouse, then runs until stopped.
 * SIGTERM: new deliveries get 503, the runner finishes its running jobs, gives up its shards (the others take them at
 * their next refresh) and the command exits 143.
 */
export const worker = Effect.gen(function*() {
  const url = yield* databaseUrlConfig
  if (Option.isNone(url)) return yield* new WorkerNeedsSharedDatabase()
  const { concurrency, host, port } = yield* runnerSettingsConfig
  const http = yield* httpListenConfig
  // Checked again where the runner listens; here so that a missing secret stops the worker before any migration.
  yield* Effect.flatMap(loadRunnerPsk, (psk) => requireSecretUnlessLoopback(psk, host, port, "listen"))
  const admin = yield* adminSettingsConfig
  const token = yield* loadAdminToken(admin)
  // Every store's secrets are opened with it: without it (or unreadable), stop now rather than fail every sync.
  yield* loadMasterKey("shopsync worker")
  const runner = `${host}:${port}`
  const pools = workerPools(url.value, concurrency)
  return yield* Effect.gen(function*() {
    yield* migrate
    yield* Effect.logInfo(
      `worker: runner ${runner} (SHOPSYNC_RUNNER_HOST:SHOPSYNC_RUNNER_PORT), ${concurrency} store jobs at once, ` +
        `warehouse and cluster tables at ${describeDatabase(url.value)}`
    )
    return yield* serveWorker({ runner, http, admin, token, concurrency, clusterSql: pools.clusterSql })
  }).pipe(Effect.provide(pools.workSql))
})
