import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Duration, Effect, Layer, Queue } from "effect"
import { errorText } from "../sync/errors.js"
import { LiveRowsLive } from "../warehouse/live-rows.js"
import { Loader, LoaderLive } from "../warehouse/loader.js"
import { type Applied, applyDelivery } from "./apply.js"
import { countDelivery } from "./delivery-metrics.js"
import { Inbox, type Pending } from "./inbox.js"

/** Deliveries read from the inbox at a time. */
const BATCH = 200
/** Attempts at a delivery whose apply keeps failing (the store or the warehouse erring) before it is marked failed. */
const MAX_ATTEMPTS = 5
/** The inbox is also looked at this often without a signal (deliveries stored by an earlier process). */
const POLL = Duration.seconds(1)

/** Wakes the worker: a delivery was stored. */
export class InboxSignal extends Context.Tag("shopsync/InboxSignal")<InboxSignal, {
  readonly notify: Effect.Effect<void>
  readonly wait: Effect.Effect<void>
}>() {}

export const InboxSignalLive = Layer.effect(InboxSignal, Effect.map(Queue.sliding<void>(1), (queue) => InboxSignal.of({
  notify: Queue.offer(queue, undefined).pipe(Effect.asVoid),
  wait: Queue.take(queue).pipe(Effect.timeout(POLL), Effect.ignore)
})))

/**
 * Applies one delivery and records its outcome in one transaction: a crash leaves it pending (replayed on restart),
 * never half applied, never recorded without its change. Uninterruptible, so SIGTERM lets it finish.
 */
const applyOne = (storeId: string, row: Pending) =>
  Effect.gen(function*() {
    const [sql, inbox] = yield* Effect.all([SqlClient.SqlClient, Inbox])
    const result = yield* sql.withTransaction(Effect.tap(applyDelivery(storeId, row.topic, row.body), (r: Applied) => inbox.settle(row.seq, r.outcome)))
    yield* countDelivery(result.outcome.state === "failed" ? "rejected" : "applied")
    if (result.outcome.state === "failed") yield* Effect.logWarning(`webhooks: delivery ${row.seq} (${row.topic}) failed: ${result.outcome.reason}`)
    return result
  }).pipe(Effect.uninterruptible)

/**
 * One pass over the pending deliveries, in order. A delivery that errs stops the pass (later ones may depend on
 * it) and is tried again on the next; after MAX_ATTEMPTS it is marked failed so it cannot hold up the inbox.
 */
const pass = (storeId: string, attempts: Map<number, number>) =>
  Effect.gen(function*() {
    const inbox = yield* Inbox
    const rows = yield* inbox.pending(storeId, BATCH)
    let changed = false
    let contacts = false
    for (const row of rows) {
      const result = yield* Effect.either(applyOne(storeId, row))
      if (result._tag === "Right") {
        attempts.delete(row.seq)
        changed ||= result.right.outcome.state === "applied"
        contacts ||= result.right.contacts
        continue
      }
      const tries = (attempts.get(row.seq) ?? 0) + 1
      attempts.set(row.seq, tries)
      const reason = errorText(result.left)
      yield* Effect.logWarning(`webhooks: delivery ${row.seq} (${row.topic}) not applied (attempt ${tries} of ${MAX_ATTEMPTS}): ${reason}`)
      if (tries >= MAX_ATTEMPTS) {
        yield* inbox.settle(row.seq, { state: "failed", reason })
        yield* countDelivery("rejected")
      }
      break
    }
    if (changed) yield* Effect.flatMap(Loader, (loader) => loader.storeDailyTotals)
    return { more: rows.length === BATCH, contacts, changed }
  }).pipe(Effect.provide(Layer.mergeAll(LoaderLive(storeId), LiveRowsLive(storeId))))

/**
 * The worker: applies the inbox whenever a delivery arrives (and every second), then has the changed contacts
 * pushed through `contactsChanged` (debounced by its receiver). Runs until interrupted.
 */
export const runWorker = (storeId: string, contactsChanged: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const signal = yield* InboxSignal
    const attempts = new Map<number, number>()
    while (true) {
      const done = yield* pass(storeId, attempts).pipe(
        Effect.catchAll((e) => Effect.as(Effect.logWarning(`webhooks: the inbox could not be read: ${errorText(e)}`), { more: false, contacts: false, changed: false }))
      )
      if (done.contacts) yield* contactsChanged
      if (!done.more) yield* signal.wait
    }
  })
