import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { type Cause, Effect, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { contactRolesConfig } from "../config/settings.js"
import { sqlFile } from "../warehouse/sql-files.js"

/** A contact waiting to be sent: its state as the service receives it, and the state's md5. */
export const PendingContact = Schema.Struct({
  email: Schema.String,
  state: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  state_hash: Schema.String
})
export type PendingContact = typeof PendingContact.Type

/** What the service did with one contact sent: `retry` leaves it pending for the next run. */
export const Recorded = Schema.Struct({
  email: Schema.String,
  /** md5 of the state that was sent. */
  hash: Schema.String,
  outcome: Schema.Literal("sent", "failed", "retry"),
  contact_id: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(Schema.String)
})
export type Recorded = typeof Recorded.Type

/** A contact whose email the service would refuse, set aside with the reason. */
export const Quarantined = Schema.Struct({ email: Schema.String, reason: Schema.String })
export type Quarantined = typeof Quarantined.Type

export const OutboxCounts = Schema.Struct({
  pending: Schema.Number,
  sent: Schema.Number,
  failed: Schema.Number,
  quarantined: Schema.Number,
  /** How long the oldest pending contact has waited (PostgreSQL's interval text), "" when none is. */
  oldest_pending_age: Schema.String
})
export type OutboxCounts = typeof OutboxCounts.Type

/** Quarantined or failed contacts sharing one reason, with a few example emails. */
export const OutboxProblem = Schema.Struct({
  status: Schema.String,
  reason: Schema.String,
  contacts: Schema.Number,
  examples: Schema.String
})
export type OutboxProblem = typeof OutboxProblem.Type

const EnqueueCounts = Schema.Struct({ derived: Schema.Number, enqueued: Schema.Number, unchanged: Schema.Number })

export interface Enqueued {
  /** Contacts the warehouse derives for the store. */
  readonly derived: number
  /** Whose state changed and now wait to be sent (those quarantined now not included). */
  readonly enqueued: number
  /** Whose state the service already has. */
  readonly unchanged: number
  /** Quarantined now. */
  readonly quarantined: ReadonlyArray<Quarantined>
}

/** Rows of the outbox's own statements not matching their schema is a bug, not a failure to handle. */
const rowsOrDie = <A, R>(effect: Effect.Effect<A, SqlError | ParseError | Cause.NoSuchElementException, R>): Effect.Effect<A, SqlError, R> =>
  Effect.catchIf(effect, (e): e is ParseError | Cause.NoSuchElementException => e._tag !== "SqlError", Effect.die)

/** The contact outbox (`marketing.outbox`): the only reader and writer of the `marketing` schema. */
export class Outbox extends Effect.Service<Outbox>()("shopsync/Outbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const contactRoles = (yield* contactRolesConfig).join(",")

    const enqueueCounts = SqlSchema.single({
      Request: Schema.String,
      Result: EnqueueCounts,
      execute: (storeId) => sql.unsafe(sqlFile("contacts/enqueue"), [storeId])
    })
    const quarantine = SqlSchema.findAll({
      Request: Schema.String,
      Result: Quarantined,
      execute: (storeId) => sql.unsafe(sqlFile("contacts/quarantine"), [storeId])
    })
    const enqueue = (storeId: string) =>
      sql.withTransaction(Effect.gen(function*() {
        // The derivation reads whole tables, where hash and merge joins are right whatever the statistics say;
        // right after a first load (tables not analyzed yet) the planner would otherwise nest loops for seconds.
        yield* sql`SET LOCAL enable_nestloop = off`
        // The roles of registered customers, which analytics.marketing_contacts reads (SHOPSYNC_CONTACT_ROLES).
        yield* sql`SELECT set_config('shopsync.contact_roles', ${contactRoles}, true)`
        const counts = yield* enqueueCounts(storeId)
        const quarantined = yield* quarantine(storeId)
        return { ...counts, enqueued: counts.enqueued - quarantined.length, quarantined }
      })).pipe(rowsOrDie)

    const requeueFailed = (storeId: string) =>
      sql`UPDATE marketing.outbox SET status = 'pending', attempts = 0, updated_at = now()
          WHERE store_id = ${storeId} AND status = 'failed' RETURNING email`.pipe(Effect.map((rows) => rows.length))

    const pending = SqlSchema.findAll({
      Request: Schema.Struct({ storeId: Schema.String, after: Schema.String, limit: Schema.Number }),
      Result: PendingContact,
      execute: ({ after, limit, storeId }) =>
        sql`SELECT email, state, state_hash FROM marketing.outbox
            WHERE store_id = ${storeId} AND status = 'pending' AND email > ${after}
            ORDER BY email LIMIT ${limit}`
    })

    const counts = SqlSchema.single({
      Request: Schema.String,
      Result: OutboxCounts,
      execute: (storeId) =>
        sql`SELECT
              count(*) FILTER (WHERE status = 'pending')::integer AS pending,
              count(*) FILTER (WHERE status = 'sent')::integer AS sent,
              count(*) FILTER (WHERE status = 'failed')::integer AS failed,
              count(*) FILTER (WHERE status = 'quarantined')::integer AS quarantined,
              coalesce(justify_interval(date_trunc('second', now() - min(enqueued_at) FILTER (WHERE status = 'pending')))::text, '')
                AS oldest_pending_age
            FROM marketing.outbox WHERE store_id = ${storeId}`
    })

    const problems = SqlSchema.findAll({
      Request: Schema.String,
      Result: OutboxProblem,
      execute: (storeId) =>
        sql`SELECT status, left(coalesce(reason, last_error, ''), 160) AS reason, count(*)::integer AS contacts,
                   array_to_string((array_agg(email ORDER BY email))[1:3], ', ') AS examples
            FROM marketing.outbox
            WHERE store_id = ${storeId} AND status IN ('quarantined', 'failed')
            GROUP BY status, left(coalesce(reason, last_error, ''), 160)
            ORDER BY status DESC, contacts DESC, reason`
    })

    return {
      /** Derives the store's contacts, enqueues those whose state changed and quarantines bad emails, in one transaction. */
      enqueue,
      /** Gives the contacts the service refused another chance; returns how many. */
      requeueFailed,
      /** At most `limit` pending contacts after email `after`, in email order (keyset paging). */
      pending: (storeId: string, after: string, limit: number): Effect.Effect<ReadonlyArray<PendingContact>, SqlError> =>
        rowsOrDie(pending({ storeId, after, limit })),
      /** Counts a send attempt, before the request leaves. */
      attempt: (storeId: string, emails: ReadonlyArray<string>): Effect.Effect<void, SqlError> =>
        sql`UPDATE marketing.outbox SET attempts = attempts + 1, updated_at = now()
            WHERE store_id = ${storeId} AND email = ANY (${emails}::text[])`.pipe(Effect.asVoid),
      /** Records what the service did with one batch (sql/contacts/record.sql). */
      record: (storeId: string, rows: ReadonlyArray<Recorded>): Effect.Effect<void, SqlError> =>
        sql.unsafe(sqlFile("contacts/record"), [storeId, JSON.stringify(rows)]).pipe(Effect.asVoid),
      /** Contacts per status and the oldest pending one's age. */
      counts: (storeId: string): Effect.Effect<OutboxCounts, SqlError> => rowsOrDie(counts(storeId)),
      /** Why contacts are quarantined or failed, grouped by reason. */
      problems: (storeId: string): Effect.Effect<ReadonlyArray<OutboxProblem>, SqlError> => rowsOrDie(problems(storeId)),
      /** Empties the store's outbox (the demo's marketing simulator starts empty each time). */
      reset: (storeId: string): Effect.Effect<void, SqlError> => sql`DELETE FROM marketing.outbox WHERE store_id = ${storeId}`.pipe(Effect.asVoid)
    }
  })
}) {}
