import * as SqlClient from "@effect/sql/SqlClient"
import { Cause, Duration, Effect, Queue, Ref } from "effect"
import { errorText } from "../sync/errors.js"
import { Loader } from "../warehouse/loader.js"
import { type Applied, applyDelivery } from "./apply.js"
import { countDelivery, type DeliveryCounter } from "./delivery-metrics.js"
import { Inbox, type Pending } from "./inbox.js"
import { WebhookRejections } from "./rejections.js"

/** Deliveries read from the inbox at a time. */
const BATCH = 200
/** Attempts at a delivery whose apply keeps failing (the store or the warehouse erring) before it is marked failed. */
const MAX_ATTEMPTS = 5
/** The inbox is also looked at this often without a signal (deliveries stored by an earlier process). */
const POLL = Duration.seconds(1)

/** Wakes the worker: a delivery was stored. */
export class InboxSignal extends Effect.Service<InboxSignal>()("shopsync/InboxSignal", {
  effect: Effect.map(Queue.sliding<void>(1), (queue) => ({
    notify: Queue.offer(queue, undefined).pipe(Effect.asVoid),
    wait: Queue.take(queue).pipe(Effect.timeout(POLL), Effect.ignore)
  }))
}) {}

/**
 * Marks a delivery whose apply died (a bug, or a document past what screen-body.ts bounds) failed with the defect,
 * after its transaction rolled back: a defect does not heal on a second try, and left pending it would stop the
 * inbox for good, being first again after every restart.
 */
const settleDefect = (storeId: string, row: Pending, count: DeliveryCounter, defect: unknown) =>
  Effect.gen(function*() {
    const reason = `applying it died: ${defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect)}`
    yield* Effect.logError(`webhooks: delivery ${row.seq} (${row.topic}) failed: ${reason}`, Cause.die(defect))
    yield* Effect.flatMap(Inbox, (inbox) => inbox.settle(row.seq, { state: "failed", reason }))
    yield* count("rejected", storeId)
    return { outcome: { state: "failed", reason }, contacts: false } satisfies Applied
  })

/**
 * Applies one delivery and records its outcome in one transaction: a crash leaves it pending (replayed on restart),
 * never half applied, never recorded without its change. A defect is recorded (settleDefect), never fatal to the
 * pass. Uninterruptible, so SIGTERM lets it finish.
 */
const applyOne = (storeId: string, row: Pending, options: PassOptions) =>
  Effect.gen(function*() {
    const [sql, inbox] = yield* Effect.all([SqlClient.SqlClient, Inbox])
    const result = yield* sql.withTransaction(Effect.tap(applyDelivery(storeId, row.topic, row.body), (r: Applied) => inbox.settle(row.seq, r.outcome)))
    yield* options.count(result.outcome.state === "failed" ? "rejected" : "applied", storeId)
    if (result.outcome.state === "failed") yield* options.unapplicable(`delivery ${row.seq} of store ${storeId} (${row.topic}): ${result.outcome.reason}`)
    return result
  }).pipe(
    Effect.catchAllDefect((defect) => settleDefect(storeId, row, options.count, defect)),
    Effect.uninterruptible
  )

/** What a pass did: whether a full batch was read (more may wait), contacts may have changed, the warehouse changed. */
export interface PassResult {
  readonly more: boolean
  readonly contacts: boolean
  readonly changed: boolean
}

export interface PassOptions {
  /** Failed attempts per delivery (inbox seq), kept by the caller across passes. */
  readonly attempts: Map<number, number>
  /** How the pass counts its deliveries: serve's counter has no store tag (one store), a worker's has. */
  readonly count: DeliveryCounter
  /**
   * Logs a delivery that ended failed (which, and why): WebhookRejections' `unapplicable`, at most a line a minute,
   * so a flood of deliveries that cannot be applied does not flood the log.
   */
  readonly unapplicable: (detail: string) => Effect.Effect<void>
}

/**
 * One pass over the pending deliveries, in order, with the store's StoreClient (for what a delivery makes it read).
 * A delivery that errs stops the pass (later ones may depend on it) and is tried again on the next; after
 * MAX_ATTEMPTS it is marked failed so it cannot hold up the inbox. The store's daily totals follow a change.
 */
export const applyPass = Effect.fn("webhooks.applyPass")(function*(storeId: string, options: PassOptions) {
  const inbox = yield* Inbox
  const rows = yield* inbox.pending(storeId, BATCH)
  let changed = false
  let contacts = false
  let stopped = false
  for (const row of rows) {
    const result = yield* Effect.either(applyOne(storeId, row, options))
    if (result._tag === "Right") {
      options.attempts.delete(row.seq)
      changed ||= result.right.outcome.state === "applied"
      contacts ||= result.right.contacts
      continue
    }
    stopped = true
    const tries = (options.attempts.get(row.seq) ?? 0) + 1
    options.attempts.set(row.seq, tries)
    const reason = errorText(result.left)
    yield* Effect.logWarning(`webhooks: delivery ${row.seq} (${row.topic}) not applied (attempt ${tries} of ${MAX_ATTEMPTS}): ${reason}`)
    if (tries >= MAX_ATTEMPTS) {
      yield* inbox.settle(row.seq, { state: "failed", reason })
      yield* options.count("rejected", storeId)
    }
    break
  }
  if (changed) yield* Effect.flatMap(Loader, (loader) => loader.storeDailyTotals)
  yield* Effect.annotateCurrentSpan({ "shopsync.store": storeId, "shopsync.deliveries": rows.length })
  return { more: rows.length === BATCH && !stopped, contacts, changed } satisfies PassResult
})

/** Passes until the store has nothing pending (or a delivery errs): what a worker's ApplyDelivery runs. */
export const applyAllPending = (storeId: string, options: PassOptions) =>
  Effect.gen(function*() {
    let contacts = false
    let changed = false
    for (;;) {
      const done = yield* applyPass(storeId, options)
      contacts ||= done.contacts
      changed ||= done.changed
      if (!done.more) return { contacts, changed }
    }
  })

/**
 * The worker: applies the inbox whenever a delivery arrives (and every second), then has the changed contacts
 * pushed through `contactsChanged` (debounced by its receiver). Runs until interrupted.
 */
export const runWorker = (storeId: string, contactsChanged: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const [signal, rejections] = yield* Effect.all([InboxSignal, WebhookRejections])
    const options: PassOptions = { attempts: new Map(), count: countDelivery, unapplicable: rejections.unapplicable }
    while (true) {
      const done = yield* applyPass(storeId, options).pipe(
        Effect.catchAll((e) => Effect.as(Effect.logWarning(`webhooks: the inbox could not be read: ${errorText(e)}`), { more: false, contacts: false, changed: false }))
      )
      if (done.contacts) yield* contactsChanged
      if (!done.more) yield* signal.wait
    }
  })

/** How long a worker that died waits before it starts again: enough not to spin on a fault that persists. */
const RESTART = Duration.seconds(1)

/**
 * `runWorker`, supervised: `running` is true while it runs (GET /healthz reads it); when it dies (a defect outside
 * any delivery's apply, which applyOne records) the cause is logged and it starts again after RESTART. An
 * unsupervised worker that died left every later delivery pending with nothing said. Runs until interrupted.
 */
export const supervisedWorker = (storeId: string, contactsChanged: Effect.Effect<void>, running: Ref.Ref<boolean>) =>
  Ref.set(running, true).pipe(
    Effect.zipRight(runWorker(storeId, contactsChanged)),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Ref.set(running, false).pipe(
        Effect.zipRight(Effect.logError(`webhooks: the inbox worker died; it starts again in ${Duration.format(RESTART)}`, cause)),
        Effect.zipRight(Effect.sleep(RESTART))
      )),
    Effect.forever,
    Effect.ensuring(Ref.set(running, false))
  )
