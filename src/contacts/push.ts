import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Either } from "effect"
import { migrate } from "../warehouse/migrate.js"
import { sqlFile } from "../warehouse/sql-files.js"
import { query } from "../warehouse/writer.js"
import { MarketingClient } from "../marketing-client/client.js"
import { CONTACT_FIELDS } from "./contact-fields.js"
import { isTransient, type MarketingError } from "../marketing-client/errors.js"
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

export interface OutboxCounts {
  readonly pending: number
  readonly sent: number
  readonly failed: number
  readonly quarantined: number
  readonly oldest_pending_age: string
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

interface PendingRow {
  readonly email: string
  readonly state: Record<string, unknown>
  readonly state_hash: string
}

type Outcome = "sent" | "failed" | "retry"

interface Recorded {
  readonly email: string
  readonly hash: string
  readonly outcome: Outcome
  readonly contact_id: number | null
  readonly error: string | null
}

const record = (storeId: string, rows: ReadonlyArray<Recorded>) => query("marketing_record", [storeId, JSON.stringify(rows)])

/** Derives the store's contacts and enqueues the changed ones, quarantining bad emails, in one transaction. */
export const enqueueContacts = (storeId: string): Effect.Effect<EnqueueResult, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      yield* query("marketing_bulk_plan")
      const [counts] = yield* query<{ derived: number; enqueued: number; unchanged: number }>("marketing_enqueue", [storeId])
      const quarantined = yield* query<{ email: string; reason: string }>("marketing_quarantine", [storeId])
      for (const q of quarantined) yield* Effect.logWarning(`marketing: ${q.email} quarantined: ${q.reason}`)
      return {
        derived: counts?.derived ?? 0,
        enqueued: (counts?.enqueued ?? 0) - quarantined.length,
        unchanged: counts?.unchanged ?? 0,
        quarantined: quarantined.length
      }
    })))

/** One push at a time per store: a session advisory lock held for the scope. */
const tryLock = (storeId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const conn = yield* sql.reserve
    const rows = yield* conn.execute(sqlFile("queries/marketing_lock"), [storeId], undefined)
    const locked = (rows[0] as { locked?: boolean } | undefined)?.locked === true
    if (locked) yield* Effect.addFinalizer(() => conn.execute(sqlFile("queries/marketing_unlock"), [storeId], undefined).pipe(Effect.ignore))
    return locked
  })

const outboxCounts = (storeId: string) =>
  query<OutboxCounts>("marketing_status", [storeId]).pipe(
    Effect.map(([row]) => row ?? { pending: 0, sent: 0, failed: 0, quarantined: 0, oldest_pending_age: "" })
  )

const chunks = <A>(rows: ReadonlyArray<A>, size: number): A[][] => {
  const out: A[][] = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}

/** A per-entry status: 2xx done, 4xx refused for good (but 429 and 408 are load), anything else retried next run. */
const outcomeOf = (status: number): Outcome =>
  status === 200 || status === 201 ? "sent" : status >= 400 && status < 500 && status !== 408 && status !== 429 ? "failed" : "retry"

/**
 * Enqueues the contacts whose derived state changed, then sends every pending one through the batch
 * endpoint. Safe to repeat and to interrupt anywhere: a row is marked sent only after the service
 * answered for it, and what is re-sent is the same absolute state, which the service merges by email.
 */
export const pushContacts = (options: { readonly storeId: string; readonly retryFailed?: boolean }) =>
  Effect.gen(function*() {
    const { storeId } = options
    const client = yield* MarketingClient
    const requestsBefore = yield* client.requestCount
    const tokensBefore = yield* client.tokenRequestCount
    yield* migrate

    if (!(yield* tryLock(storeId))) {
      yield* Effect.logWarning(`marketing: another push of store ${storeId} is running; nothing done`)
      return {
        derived: 0, enqueued: 0, unchanged: 0, quarantined: 0, created: 0, updated: 0, failed: 0, batches: 0,
        requests: 0, tokenRequests: 0, gaveUp: undefined, skipped: true, outbox: yield* outboxCounts(storeId)
      } satisfies PushResult
    }

    if (options.retryFailed) {
      const requeued = yield* query("marketing_requeue_failed", [storeId])
      if (requeued.length > 0) yield* Effect.logInfo(`marketing: ${requeued.length} failed contact(s) queued again`)
    }
    const enqueued = yield* enqueueContacts(storeId)
    const totals = { created: 0, updated: 0, failed: 0, batches: 0 }
    let gaveUp: string | undefined

    const giveUp = (error: MarketingError) =>
      Effect.gen(function*() {
        gaveUp = error.message
        yield* Effect.logWarning(`marketing: giving up for this run, unsent contacts stay pending: ${error.message}`)
      })

    const sendBatch = (rows: ReadonlyArray<PendingRow>) =>
      Effect.gen(function*() {
        yield* query("marketing_attempt", [storeId, rows.map((r) => r.email)])
        totals.batches++
        const answer = yield* Effect.either(client.upsertContacts(rows.map((r) => contactPayload(r.state))))
        if (Either.isLeft(answer)) {
          const error = answer.left
          yield* record(storeId, rows.map((r) => ({ email: r.email, hash: r.state_hash, outcome: "retry", contact_id: null, error: error.message })))
          if (isTransient(error)) return yield* giveUp(error)
          return yield* Effect.fail(error)
        }
        const results = rows.map((row, i): Recorded => {
          const entry = answer.right[i]!
          const outcome = outcomeOf(entry.status)
          if (outcome === "sent" && entry.status === 201) totals.created++
          else if (outcome === "sent") totals.updated++
          else if (outcome === "failed") totals.failed++
          return {
            email: row.email,
            hash: row.state_hash,
            outcome,
            contact_id: entry.contactId ?? null,
            error: outcome === "sent" ? null : `${entry.status}: ${entry.error ?? "refused without a message"}`
          }
        })
        yield* record(storeId, results)
        for (const r of results) if (r.outcome === "failed") yield* Effect.logWarning(`marketing: ${r.email} refused: ${r.error}`)
      })

    // Keyset over the pending rows: each row is tried at most once per run, whatever happens to it.
    let after = ""
    let fieldsChecked = false
    while (gaveUp === undefined) {
      const page = yield* query<PendingRow>("marketing_pending", [storeId, after, client.batchSize * client.concurrency])
      if (page.length === 0) break
      after = page[page.length - 1]!.email
      if (!fieldsChecked) {
        // Only when there is something to send, so a push with nothing to do costs no request at all.
        const fields = yield* Effect.either(client.ensureFields(CONTACT_FIELDS))
        if (Either.isLeft(fields)) {
          if (!isTransient(fields.left)) return yield* Effect.fail(fields.left)
          yield* giveUp(fields.left)
          break
        }
        fieldsChecked = true
      }
      yield* Effect.forEach(chunks(page, client.batchSize), sendBatch, { concurrency: client.concurrency, discard: true })
    }

    const result: PushResult = {
      ...enqueued,
      ...totals,
      requests: (yield* client.requestCount) - requestsBefore,
      tokenRequests: (yield* client.tokenRequestCount) - tokensBefore,
      gaveUp,
      skipped: false,
      outbox: yield* outboxCounts(storeId)
    }
    yield* Effect.logInfo("marketing push finished").pipe(Effect.annotateLogs({
      store: storeId, created: result.created, updated: result.updated, unchanged: result.unchanged, failed: result.failed,
      quarantined: result.quarantined, pending: result.outbox.pending, requests: result.requests, tokenRequests: result.tokenRequests
    }))
    return result
  }).pipe(Effect.scoped)
