import { Effect, Either } from "effect"
import { routineLevel } from "../sync/outcome.js"
import { tryAdvisoryLock } from "../warehouse/advisory-lock.js"
import { type EntryResult, MarketingClient } from "../marketing-client/client.js"
import { isTransient, type MarketingError } from "../marketing-client/errors.js"
import { CONTACT_FIELDS } from "./contact-fields.js"
import { Outbox, type OutboxCounts, type PendingContact, type Recorded } from "./outbox.js"
import { contactPayload } from "./payload.js"

export interface EnqueueResult {
  /** Contacts the warehouse derives for the store. */
  readonly derived: number
  /** Whose state changed and now wait to be sent. */
  readonly enqueued: number
  /** Whose state the service already has. */
  readonly unchanged: number
  /** Newly quarantined (an email the service would refuse). */
  readonly quarantined: number
}

export interface PushResult extends EnqueueResult {
  /** Entries the service answered 201 (new contact) and 200 (merged into the contact with that email). */
  readonly created: number
  readonly updated: number
  /** Entries the service refused (4xx), marked failed with its message. */
  readonly failed: number
  readonly batches: number
  /** API requests and token requests of this push (retries included). */
  readonly requests: number
  readonly tokenRequests: number
  /** Set when the run stopped early on a service that stayed unavailable: what is unsent stays pending. */
  readonly gaveUp: string | undefined
  /** True when another push of this store held the lock: nothing was done. */
  readonly skipped: boolean
  readonly outbox: OutboxCounts
}

/** What the sending part of one push did so far (its batches run concurrently). */
interface Tally {
  created: number
  updated: number
  failed: number
  batches: number
  gaveUp: string | undefined
}

/** The advisory lock namespace of pushes: one push per store at a time (the sync's push and a manual one). */
const PUSH_LOCK = "shopsync:push"

/** Derives the store's contacts and enqueues the changed ones, quarantining bad emails, in one transaction. */
export const enqueueContacts = (storeId: string) =>
  Effect.gen(function*() {
    const { quarantined, ...counts } = yield* (yield* Outbox).enqueue(storeId)
    for (const q of quarantined) yield* Effect.logWarning(`marketing: ${q.email} quarantined: ${q.reason}`)
    return { ...counts, quarantined: quarantined.length } satisfies EnqueueResult
  })

const skippedPush = (storeId: string) =>
  Effect.gen(function*() {
    yield* Effect.logWarning(`marketing: another push of store ${storeId} is running; nothing done`)
    return {
      derived: 0, enqueued: 0, unchanged: 0, quarantined: 0, created: 0, updated: 0, failed: 0, batches: 0,
      requests: 0, tokenRequests: 0, gaveUp: undefined, skipped: true, outbox: yield* (yield* Outbox).counts(storeId)
    } satisfies PushResult
  })

const requeueFailed = (storeId: string) =>
  Effect.gen(function*() {
    const requeued = yield* (yield* Outbox).requeueFailed(storeId)
    if (requeued > 0) yield* Effect.logInfo(`marketing: ${requeued} failed contact(s) queued again`)
  })

const chunks = <A>(rows: ReadonlyArray<A>, size: number): A[][] => {
  const out: A[][] = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}

/** A per-entry status: 2xx done, 4xx refused for good (but 429 and 408 are load), anything else retried next run. */
const outcomeOf = (status: number): Recorded["outcome"] =>
  status === 200 || status === 201 ? "sent" : status >= 400 && status < 500 && status !== 408 && status !== 429 ? "failed" : "retry"

/** What to record for one contact of a batch, counted in the tally. */
const recordedOf = (tally: Tally, row: PendingContact, entry: EntryResult): Recorded => {
  const outcome = outcomeOf(entry.status)
  if (outcome === "sent" && entry.status === 201) tally.created++
  else if (outcome === "sent") tally.updated++
  else if (outcome === "failed") tally.failed++
  return {
    email: row.email,
    hash: row.state_hash,
    outcome,
    contact_id: entry.contactId ?? null,
    error: outcome === "sent" ? null : `${entry.status}: ${entry.error ?? "refused without a message"}`
  }
}

const giveUp = (tally: Tally, error: MarketingError) =>
  Effect.gen(function*() {
    tally.gaveUp = error.message
    yield* Effect.logWarning(`marketing: giving up for this run, unsent contacts stay pending: ${error.message}`)
  })

/** One batch request: the attempt is counted before it leaves, the answer recorded entry by entry. */
const sendBatch = (storeId: string, tally: Tally) => (rows: ReadonlyArray<PendingContact>) =>
  Effect.gen(function*() {
    const outbox = yield* Outbox
    const client = yield* MarketingClient
    yield* outbox.attempt(storeId, rows.map((r) => r.email))
    tally.batches++
    const answer = yield* Effect.either(client.upsertContacts(rows.map((r) => contactPayload(r.state))))
    if (Either.isLeft(answer)) {
      const error = answer.left
      yield* outbox.record(storeId, rows.map((r) => ({ email: r.email, hash: r.state_hash, outcome: "retry", contact_id: null, error: error.message })))
      if (isTransient(error)) return yield* giveUp(tally, error)
      return yield* Effect.fail(error)
    }
    const results = rows.map((row, i) => recordedOf(tally, row, answer.right[i]!))
    yield* outbox.record(storeId, results)
    for (const r of results) if (r.outcome === "failed") yield* Effect.logWarning(`marketing: ${r.email} refused: ${r.error}`)
  })

/** The contact fields, before the first send: false when the service stayed unavailable (the run gives up). */
const fieldsReady = (tally: Tally) =>
  Effect.gen(function*() {
    const fields = yield* Effect.either((yield* MarketingClient).ensureFields(CONTACT_FIELDS))
    if (Either.isRight(fields)) return true
    if (!isTransient(fields.left)) return yield* Effect.fail(fields.left)
    yield* giveUp(tally, fields.left)
    return false
  })

/** Keyset over the pending rows: each row is tried at most once per run, whatever happens to it. */
const sendPending = (storeId: string, tally: Tally) =>
  Effect.gen(function*() {
    const outbox = yield* Outbox
    const client = yield* MarketingClient
    let after = ""
    let fieldsChecked = false
    while (tally.gaveUp === undefined) {
      const page = yield* outbox.pending(storeId, after, client.batchSize * client.concurrency)
      if (page.length === 0) break
      after = page[page.length - 1]!.email
      // Only when there is something to send, so a push with nothing to do costs no request at all.
      if (!fieldsChecked && !(yield* fieldsReady(tally))) break
      fieldsChecked = true
      yield* Effect.forEach(chunks(page, client.batchSize), sendBatch(storeId, tally), { concurrency: client.concurrency, discard: true })
    }
  })

interface RequestCounts {
  readonly requests: number
  readonly tokenRequests: number
}

const requestCounts = Effect.gen(function*() {
  const client = yield* MarketingClient
  return { requests: yield* client.requestCount, tokenRequests: yield* client.tokenRequestCount } satisfies RequestCounts
})

const pushResult = (storeId: string, enqueued: EnqueueResult, tally: Tally, before: RequestCounts) =>
  Effect.gen(function*() {
    const after = yield* requestCounts
    const result: PushResult = {
      ...enqueued,
      ...tally,
      requests: after.requests - before.requests,
      tokenRequests: after.tokenRequests - before.tokenRequests,
      skipped: false,
      outbox: yield* (yield* Outbox).counts(storeId)
    }
    // The detail behind the push's outcome line (jobs/report.ts), which every host logs: routine.
    yield* Effect.logWithLevel(routineLevel(process.stderr.isTTY === true), "marketing push finished").pipe(Effect.annotateLogs({
      store: storeId, created: result.created, updated: result.updated, unchanged: result.unchanged, failed: result.failed,
      quarantined: result.quarantined, pending: result.outbox.pending, requests: result.requests, tokenRequests: result.tokenRequests
    }))
    return result
  })

/**
 * Enqueues the contacts whose derived state changed, then sends every pending one through the batch
 * endpoint. Safe to repeat and to interrupt anywhere: a row is marked sent only after the service
 * answered for it, and what is re-sent is the same absolute state, which the service merges by email.
 */
export const pushContacts = Effect.fn("marketing.push")(function*(options: { readonly storeId: string; readonly retryFailed?: boolean }) {
  const { storeId } = options
  yield* Effect.annotateCurrentSpan("shopsync.store", storeId)
  const before = yield* requestCounts
  if (!(yield* tryAdvisoryLock(PUSH_LOCK, storeId))) return yield* skippedPush(storeId)
  if (options.retryFailed) yield* requeueFailed(storeId)
  const enqueued = yield* enqueueContacts(storeId)
  const tally: Tally = { created: 0, updated: 0, failed: 0, batches: 0, gaveUp: undefined }
  yield* sendPending(storeId, tally)
  return yield* pushResult(storeId, enqueued, tally, before)
}, Effect.scoped)
