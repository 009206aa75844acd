import { Effect, Either, Option, type Ref } from "effect"
import type * as SqlClient from "@effect/sql/SqlClient"
import { fullPassConfig, type MarketingSettings, type StoreSettings } from "../config/settings.js"
import { type HttpClients, HttpClientsLive } from "../http-client/clients.js"
import { Outbox } from "../contacts/outbox.js"
import { enqueueContacts, type EnqueueResult, pushContacts } from "../contacts/push.js"
import { MarketingLive } from "../marketing-client/client.js"
import { StoreClientLive } from "../store-client/client.js"
import { runSync, type RunSummary, storeDailyTotals, type SyncRequest } from "../sync/engine.js"
import { RunLockHeld, type SyncFailed } from "../sync/errors.js"
import type { StreamName } from "../sync/catalogue.js"
import { dryRun } from "../sync/dry-run.js"
import { runVerify, type VerifyRequest } from "../sync/reconcile/verify.js"
import { Runs } from "../sync/runs.js"
import { SyncState } from "../sync/state.js"
import { Loader } from "../warehouse/loader.js"
import { Inbox } from "../webhooks/inbox.js"
import { resyncOne, type ResyncResource } from "../webhooks/resync.js"
import { applyAllPending, type PassOptions, supervisedWorker } from "../webhooks/worker.js"
import { Alerts } from "./alerts.js"
import { MigratedWarehouse, syncLayer, withStoreRepositories } from "./layers.js"
import { type PushGaveUp, type Pushed, pushed } from "./report.js"

/** A store as a job needs it: who it is, how to reach it, and its marketing service (None: its contacts stay). */
export interface StoreTarget {
  readonly storeId: string
  readonly settings: StoreSettings
  readonly marketing: Option.Option<MarketingSettings>
}

/** A sync or backfill: the request a host makes, minus the full-pass settings (the job reads them). */
export type StoreJob = Pick<SyncRequest, "streams" | "mode" | "waitForLock" | "waitSeconds" | "named" | "fullRefresh">

/** After a sync: send the changed contacts, only enqueue them (`sync --no-push`), or leave them (serve pushes its own way). */
export type AfterSync = "push" | "enqueue" | "none"

/** What became of the contacts after a sync. A push that failed outright is kept, so the run's report still shows. */
export type ContactsReport<E> =
  | { readonly _tag: "NotAsked" }
  | { readonly _tag: "NotConfigured" }
  | { readonly _tag: "Enqueued"; readonly queued: EnqueueResult }
  | { readonly _tag: "Pushed"; readonly pushed: Pushed }
  | { readonly _tag: "PushFailed"; readonly error: E }

/** A sync's or backfill's report: another run held the lock (nothing ran), or what the run did and what followed. */
export type SyncReport<E> =
  | { readonly _tag: "Locked"; readonly held: RunLockHeld }
  | { readonly _tag: "Ran"; readonly summary: RunSummary; readonly failed: Option.Option<SyncFailed>; readonly contacts: ContactsReport<E> }

const NOT_ASKED = { _tag: "NotAsked" } as const

/**
 * The report's failure, if any, for the host to fail with once it has rendered the report: another run's lock; else
 * the push's (it replaces the streams', as it always has); else the streams that failed (exit 2).
 */
export const verdict = <E>(report: SyncReport<E>): Option.Option<RunLockHeld | PushGaveUp | SyncFailed | E> => {
  if (report._tag === "Locked") return Option.some(report.held)
  const c = report.contacts
  if (c._tag === "PushFailed") return Option.some(c.error)
  if (c._tag === "Pushed" && c.pushed.gaveUp !== undefined) return Option.some(c.pushed.gaveUp)
  return report.failed
}

/**
 * A store's jobs, for every host (the CLI, `serve`, a worker's store entity): each provides the per-store layers
 * once, runs the job and returns a report; the host renders it (the CLI prints, the others log). Building the
 * service migrates the warehouse (MigratedWarehouse), once per process: the jobs assume it.
 */
export class StoreJobs extends Effect.Service<StoreJobs>()("shopsync/StoreJobs", {
  effect: Effect.gen(function*() {
    const context = yield* Effect.context<SqlClient.SqlClient | Outbox | Inbox | HttpClients>()
    const alerts = yield* Alerts

    const push = (storeId: string, marketing: MarketingSettings, retryFailed = false) =>
      pushContacts({ storeId, retryFailed }).pipe(Effect.map(pushed), Effect.provide(MarketingLive(marketing)), Effect.provide(context))

    const contactsAfter = (target: StoreTarget, after: AfterSync) => {
      if (after === "none") return Effect.succeed(NOT_ASKED)
      if (Option.isNone(target.marketing)) return Effect.succeed({ _tag: "NotConfigured" } as const)
      if (after === "enqueue") {
        return enqueueContacts(target.storeId).pipe(Effect.map((queued) => ({ _tag: "Enqueued", queued } as const)), Effect.provide(context))
      }
      return push(target.storeId, target.marketing.value).pipe(
        Effect.either,
        Effect.map(Either.match({
          onLeft: (error) => ({ _tag: "PushFailed", error } as const),
          onRight: (p) => ({ _tag: "Pushed", pushed: p } as const)
        }))
      )
    }

    /**
     * A sync or backfill, then the contacts (`after`), when streams failed too: the push works on what the warehouse
     * holds. A run that found the lock held is recorded as skipped unless `recordSkipped` is false.
     */
    const run = Effect.fn("StoreJobs.run")(function*(target: StoreTarget, job: StoreJob, after: AfterSync, recordSkipped = true) {
      yield* Effect.annotateCurrentSpan({ "shopsync.store": target.storeId, "shopsync.mode": job.mode.kind })
      const outcome = yield* runSync({ ...job, ...(yield* fullPassConfig) }).pipe(
        withStoreRepositories(target.storeId),
        Effect.provide(syncLayer(target.settings)),
        Effect.map(Either.right),
        Effect.catchTag("SyncFailed", (failed) => Effect.succeed(Either.left(failed)))
      )
      if (Either.isRight(outcome) && outcome.right === undefined) {
        const held = new RunLockHeld({ storeId: target.storeId, ...(job.waitSeconds === undefined ? {} : { waitedSeconds: job.waitSeconds }) })
        if (recordSkipped) yield* skipped(target.storeId, job.mode.kind, job.streams, held)
        return { _tag: "Locked", held } as const
      }
      const summary = Either.match(outcome, { onLeft: (failed) => failed.summary, onRight: (s) => s! })
      const contacts = yield* contactsAfter(target, job.mode.kind === "sync" ? after : "none")
      return { _tag: "Ran", summary, failed: Either.getLeft(outcome), contacts } as const
    }, Effect.provide(context), (job, target, request) => alerts.watchRun(job, target, request.mode.kind, verdict))

    /** A run that found the store's lock held, recorded as skipped. */
    const skipped = (storeId: string, command: string, streams: ReadonlyArray<string>, held: RunLockHeld) =>
      Effect.flatMap(Runs, (runs) => runs.skipped(command, streams, held)).pipe(withStoreRepositories(storeId), Effect.provide(context))

    /** `shopsync verify`: the reconciliation on its own, under the run lock; Locked (recorded as skipped) when held. */
    const verify = Effect.fn("StoreJobs.verify")(function*(target: StoreTarget, request: VerifyRequest) {
      yield* Effect.annotateCurrentSpan("shopsync.store", target.storeId)
      const report = yield* runVerify(request).pipe(withStoreRepositories(target.storeId), Effect.provide(syncLayer(target.settings)))
      if (report !== undefined) return { _tag: "Ran", report } as const
      const held = new RunLockHeld({ storeId: target.storeId })
      yield* skipped(target.storeId, "verify", request.resources, held)
      return { _tag: "Locked", held } as const
    }, Effect.provide(context))

    /** `effect` (the delivery applier: applyAllPending, the inbox worker) with the store's client and repositories. */
    const withInbox = (store: StoreTarget) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(withStoreRepositories(store.storeId), Effect.provide(StoreClientLive(store.settings)))

    return {
      sync: (target: StoreTarget, job: StoreJob, after: AfterSync, recordSkipped?: boolean) => run(target, job, after, recordSkipped),
      backfill: (target: StoreTarget, job: StoreJob) => run(target, job, "none"),
      verify,
      /** `sync --dry-run`: what a sync of `streams` would read (sync/dry-run.ts); writes nothing, takes no lock. */
      dryRun: (target: StoreTarget, streams: ReadonlyArray<StreamName>) =>
        dryRun(streams).pipe(withStoreRepositories(target.storeId), Effect.provide(StoreClientLive(target.settings)), Effect.provide(context)),
      push,
      /**
       * `shopsync resync`: each document read again by id from the store (webhooks/resync.ts), then the daily sums.
       * Without the run lock, as a webhook delivery: a merge of one document waits for any other of it.
       */
      resync: (target: StoreTarget, resource: ResyncResource, ids: ReadonlyArray<number>) =>
        Effect.forEach(ids, (id) => resyncOne(target.storeId, resource, id)).pipe(
          Effect.tap(storeDailyTotals),
          Effect.withSpan("StoreJobs.resync", { attributes: { "shopsync.store": target.storeId, "shopsync.resource": resource } }),
          withInbox(target),
          Effect.provide(context)
        ),
      /** After a long-running host's scheduled run: alerts when the store's sales data stops being current, or is again. */
      checkFreshness: alerts.checkFreshness,
      /** Empties a store's rows, cursors and outbox: the demo's store starts empty each time. */
      reset: (storeId: string) =>
        Effect.all([Effect.flatMap(Loader, (l) => l.reset), Effect.flatMap(SyncState, (s) => s.reset), Effect.flatMap(Outbox, (o) => o.reset(storeId))], { discard: true })
          .pipe(withStoreRepositories(storeId), Effect.provide(context)),
      /**
       * Applies every pending delivery of the store in arrival order; the target is read only when one waits (a
       * registered store's secrets are opened for work only). Then the contacts are pushed when they may have changed.
       */
      applyInbox: <E, R>(storeId: string, target: Effect.Effect<StoreTarget, E, R>, options: PassOptions) =>
        Effect.gen(function*() {
          if ((yield* Effect.flatMap(Inbox, (inbox) => inbox.pending(storeId, 1))).length === 0) return NOT_ASKED
          const store = yield* target
          const done = yield* applyAllPending(storeId, options).pipe(withInbox(store))
          if (!done.contacts || Option.isNone(store.marketing)) return NOT_ASKED
          return { _tag: "Pushed", pushed: yield* push(storeId, store.marketing.value) } as const
        }).pipe(Effect.withSpan("StoreJobs.applyInbox", { attributes: { "shopsync.store": storeId } }), Effect.provide(context)),
      /**
       * serve's inbox worker for its one store (webhooks/worker.ts `supervisedWorker`): applies deliveries as they
       * arrive until interrupted, `running` true while it runs, `contactsChanged` told when contacts may have changed.
       */
      inboxWorker: (store: StoreTarget, contactsChanged: Effect.Effect<void>, running: Ref.Ref<boolean>) =>
        supervisedWorker(store.storeId, contactsChanged, running).pipe(withInbox(store), Effect.provide(context))
    }
  }),
  dependencies: [Outbox.Default, Inbox.Default, MigratedWarehouse, Alerts.Default, HttpClientsLive]
}) {}
