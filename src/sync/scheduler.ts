import { Cause, Clock, Deferred, Effect, Either, Exit, Option, Ref } from "effect"
import { StoreClient } from "../store-client/client.js"
import { CATALOGUE, STREAMS, type StreamName } from "./catalogue.js"
import { type Counts, type Outputs, Progress, type RunContext, type StreamError, type StreamIO, type SyncRequest } from "./context.js"
import { errorText, NOT_DUE, type StreamResult, unavailableReason } from "./errors.js"
import { retryInRun } from "../warehouse/lease.js"
import { streamSpan } from "./spans.js"
import { type Standing, type StreamOutcome, SyncState } from "./state.js"

type Ended = Readonly<Record<StreamName, Deferred.Deferred<void>>>

/** Each output starts empty, is written by its stream alone, and is read by the others once that stream has ended. */
const streamIO = (ended: Ended) =>
  Effect.gen(function*() {
    const outputs = {
      products: yield* Ref.make<Outputs["products"]>({ variable: new Set() }),
      product_attributes: yield* Ref.make<Outputs["product_attributes"]>({ changed: [] }),
      shipping_zones: yield* Ref.make<Outputs["shipping_zones"]>({ changed: [] })
    }
    return {
      outputs,
      inputs: {
        products: Effect.zipRight(Deferred.await(ended.products), Ref.get(outputs.products)),
        product_attributes: Effect.zipRight(Deferred.await(ended.product_attributes), Ref.get(outputs.product_attributes)),
        shipping_zones: Effect.zipRight(Deferred.await(ended.shipping_zones), Ref.get(outputs.shipping_zones))
      },
      ordersEnded: Deferred.await(ended.orders)
    } satisfies StreamIO
  })

/**
 * Runs streams of the catalogue, each once every stream it runs after has ended (or is not selected); the store's
 * other resources share STORE_CONCURRENCY slots. A stream reads another's output once that one has ended; a failing
 * stream does not stop the others. The returned function runs some of the selected streams (a phase of the run).
 */
export const makeScheduler = (ctx: RunContext, request: SyncRequest, addRows: (n: number) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const state = yield* SyncState
    const progress = yield* Progress
    const slots = yield* Effect.makeSemaphore(store.concurrency)
    const fiber = yield* Effect.fiberId
    const selected = request.streams
    // A stream not selected has ended already. `over` holds the streams ended so far: a stream waits only for the
    // others still running (most have ended by the time a stream of the other resources starts).
    const over = new Set<StreamName>(STREAMS.filter((name) => !selected.includes(name)))
    const ended = Object.fromEntries(STREAMS.map((name) => {
      const done = Deferred.unsafeMake<void>(fiber)
      if (over.has(name)) Deferred.unsafeDone(done, Effect.void)
      return [name, done] as const
    })) as Ended
    const end = (name: StreamName) => Effect.suspend(() => (over.add(name), Deferred.succeed(ended[name], undefined)))
    const awaitEnded = (names: ReadonlyArray<StreamName>) => {
      const running = names.filter((name) => !over.has(name))
      return running.length === 0 ? Effect.void : Effect.forEach(running, (name) => Deferred.await(ended[name]), { discard: true })
    }
    const io = yield* streamIO(ended)
    const standings = request.named ? new Map<string, Standing>() : yield* state.standings(selected)

    const skipped = (name: StreamName) => {
      const standing = standings.get(name)
      return standing === undefined ? undefined : skipping(ctx, request, name, standing)
    }

    const runOne = (name: StreamName, outcomes: Ref.Ref<ReadonlyArray<StreamOutcome>>) =>
      Effect.gen(function*() {
        const t0 = yield* Clock.currentTimeMillis
        // A stream that lost the warehouse connection runs again from its checkpoints, for a bounded time.
        const outcome = yield* Effect.either(retryInRun(CATALOGUE[name].run(ctx, io)))
        const unavailable = unavailableOn(request, name, outcome)
        const error = Either.isLeft(outcome) && !unavailable ? failureText(name, outcome.left) : undefined
        const counts = Either.isRight(outcome) ? outcome.right : { rows: 0, deleted: 0 }
        // An unavailable stream did not succeed: its last success stays that of the last time it was served.
        yield* Ref.update(outcomes, (all) => [...all, {
          stream: name, rows: counts.rows, error: error ?? (unavailable ? `unavailable: ${unavailable}` : null),
          ...(unavailable ? { unavailable: { reason: unavailable, checkedAt: ctx.upper } } : Either.isRight(outcome) ? { served: ctx.upper } : {})
        }])
        yield* addRows(counts.rows)
        const result: StreamResult = { stream: name, ...counts, seconds: ((yield* Clock.currentTimeMillis) - t0) / 1000, ...(error ? { error } : {}), ...(unavailable ? { unavailable } : {}) }
        yield* progress.streamDone(result)
        return result
      }).pipe(streamSpan(name))
    // A stream starts once those it runs after have ended; the other resources then wait for a slot too.
    const schedule = (name: StreamName, outcomes: Ref.Ref<ReadonlyArray<StreamOutcome>>) =>
      Effect.suspend(() => awaitEnded(CATALOGUE[name].after)).pipe(
        Effect.zipRight(CATALOGUE[name].sales ? runOne(name, outcomes) : slots.withPermits(1)(runOne(name, outcomes))),
        Effect.ensuring(end(name))
      )

    // A stream that is not due ends at once, before the phase's streams start: no slot, no fiber of its own, and the
    // streams after it need not wait for it (its outputs stay empty, as a stream that reads nothing leaves them).
    const skip = (name: StreamName, result: StreamResult) =>
      Effect.zipRight(progress.streamDone(result), end(name)).pipe(Effect.as(result), streamSpan(name))

    // The phase's streams that will run are marked started together, in one write under the phase's lease, and
    // their outcomes recorded together as the phase ends (a no-change sync ran ten writes for them before). A phase
    // that fails still records the outcomes of the streams that ended (its own failure is the one reported); one that
    // is stopped writes nothing more, and its streams keep their last outcome (their checkpoints are written).
    return (names: ReadonlyArray<StreamName>) =>
      Effect.gen(function*() {
        const skips = new Map<StreamName, StreamResult>()
        for (const name of names) {
          const result = skipped(name)
          if (result !== undefined) skips.set(name, result)
        }
        const due = names.filter((name) => !skips.has(name))
        yield* state.started(due, ctx.runId)
        for (const [name, result] of skips) yield* skip(name, result)
        const outcomes = yield* Ref.make<ReadonlyArray<StreamOutcome>>([])
        const record = Effect.flatMap(Ref.getAndSet(outcomes, []), state.finished)
        const ran = yield* Effect.forEach(due, (name) => schedule(name, outcomes), { concurrency: "unbounded" }).pipe(
          Effect.onExit((exit) => (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? Effect.ignore(record) : Effect.void)),
          Effect.tap(() => record)
        )
        return names.map((name) => skips.get(name) ?? ran[due.indexOf(name)]!)
      })
  })

/** Why a stream failed; one the user named that the store does not serve says so. */
const failureText = (name: StreamName, e: StreamError) => {
  const reason = name === "orders" ? undefined : unavailableReason(e)
  return reason === undefined ? errorText(e) : `the store does not serve this stream (${reason}); leave it out of --streams`
}

/**
 * Why a plain sync skips a stream without a request, if it does: one with a refresh interval runs only once that
 * interval has passed since its last complete run; one found unavailable less than SHOPSYNC_UNAVAILABLE_RECHECK_HOURS
 * ago waits for its re-check. A stream the user named always runs (one the store does not serve then fails).
 */
const skipping = (ctx: RunContext, request: SyncRequest, name: StreamName, { refreshedAt, unavailable }: Standing): StreamResult | undefined => {
  const every = request.refreshHours[name] ?? CATALOGUE[name].every
  const skipped = { stream: name, rows: 0, deleted: 0, seconds: 0 }
  if (every > 0 && ctx.mode.kind !== "backfill" && refreshedAt !== undefined && ctx.upper - refreshedAt < every * 3600) {
    return { ...skipped, skipped: `${NOT_DUE}: refreshed every ${every} h` } satisfies StreamResult
  }
  if (Option.isSome(unavailable) && ctx.upper - unavailable.value.checkedAt < request.unavailableRecheckHours * 3600) {
    const recheck = `tried again ${request.unavailableRecheckHours} h after it was checked, or at once when named with --streams`
    return { ...skipped, unavailable: unavailable.value.reason, skipped: recheck } satisfies StreamResult
  }
  return undefined
}

/**
 * Whether a stream's outcome shows it unavailable on this store (recorded with the stream's outcome; its end is warned
 * about once, by the progress line; orders are never unavailable: nothing else makes sense without them). A stream
 * that ran to the end is served again (`finished` clears what was recorded).
 */
const unavailableOn = (request: SyncRequest, name: StreamName, outcome: Either.Either<Counts, StreamError>) =>
  Either.isLeft(outcome) && name !== "orders" && !request.named ? unavailableReason(outcome.left) : undefined
