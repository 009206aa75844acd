import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { createHash } from "node:crypto"
import { Effect, Option, type ParseResult, Schema } from "effect"
import { TOPICS } from "./headers.js"

/** A delivery as the route hands it over: verified, not yet stored. */
export interface Received {
  readonly storeId: string
  readonly webhookId: string
  readonly deliveryId: string
  readonly topic: string
  readonly body: string
  /** bodyDigest of its topic and raw body: a delivery whose digest the store already has is not stored again. */
  readonly digest: string
}

/**
 * SHA-256 (hex) of a delivery's topic and raw body, which the store's signature covers (the topic header is not
 * signed, so topics shopsync does not apply count as one: made-up topics cannot store a captured body again).
 */
export const bodyDigest = (topic: string, raw: Uint8Array): string =>
  createHash("sha256").update((TOPICS as ReadonlyArray<string>).includes(topic) ? topic : "*").update("\n").update(raw).digest("hex")

/** A pending delivery, as the worker reads it. */
export const Pending = Schema.Struct({
  seq: Schema.NumberFromString,
  store_id: Schema.String,
  topic: Schema.String,
  body: Schema.String
})
export type Pending = typeof Pending.Type

/** How a delivery ended: applied (the warehouse changed), skipped (it held this or newer), failed (never retried). */
export type Outcome = { readonly state: "applied" } | { readonly state: "skipped" | "failed"; readonly reason: string }

export const InboxCounts = Schema.Struct({
  received: Schema.Number,
  applied: Schema.Number,
  skipped: Schema.Number,
  failed: Schema.Number,
  pending: Schema.Number,
  /** The bodies the store's inbox holds, in bytes (what its bound counts). */
  bytes: Schema.Number,
  last_received_at: Schema.NullOr(Schema.String)
})
export type InboxCounts = typeof InboxCounts.Type

export const StoreWaiting = Schema.Struct({ store_id: Schema.String, pending: Schema.Number, failed: Schema.Number })
export type StoreWaiting = typeof StoreWaiting.Type

/** What became of a delivery handed to the inbox: stored, stored before (a resend, a replay), or refused (full). */
export type Stored = "new" | "duplicate" | "full"

/** A row that does not fit its schema is a defect of this module, not a database failure. */
const decoded = <A, R>(query: Effect.Effect<A, SqlError | ParseResult.ParseError, R>) =>
  Effect.catchTag(query, "ParseError", (e) => Effect.die(e))

/** sync.webhook_inbox (and its usage, sync.webhook_inbox_usage): the only module that reads or writes it. */
export class Inbox extends Effect.Service<Inbox>()("shopsync/Inbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const inserted = SqlSchema.findAll({
      Request: Schema.Struct({ storeId: Schema.String, webhookId: Schema.String, deliveryId: Schema.String, topic: Schema.String, body: Schema.String, digest: Schema.String, maxBytes: Schema.Number }),
      Result: Schema.Struct({ seq: Schema.NumberFromString }),
      // No conflict target: either unique key (the delivery ids, or the digest) makes it a duplicate. Concurrent
      // deliveries each see the usage before the others: the bound can be passed by what arrives at once.
      execute: (d) =>
        sql`INSERT INTO sync.webhook_inbox (store_id, webhook_id, delivery_id, topic, body, body_sha256)
            SELECT * FROM (VALUES (${d.storeId}, ${d.webhookId}, ${d.deliveryId}, ${d.topic}, ${d.body}::text, decode(${d.digest}, 'hex')))
              AS d(store_id, webhook_id, delivery_id, topic, body, body_sha256)
            WHERE coalesce((SELECT bytes FROM sync.webhook_inbox_usage u WHERE u.store_id = d.store_id), 0) + octet_length(d.body) <= ${d.maxBytes}
            ON CONFLICT DO NOTHING RETURNING seq`
    })

    const stored = (d: Received) =>
      sql`SELECT 1 FROM sync.webhook_inbox WHERE store_id = ${d.storeId}
            AND ((webhook_id = ${d.webhookId} AND delivery_id = ${d.deliveryId}) OR body_sha256 = decode(${d.digest}, 'hex'))`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    // The oldest settled deliveries whose bodies, summed in arrival order, come to `bytes`.
    const evict = (storeId: string, bytes: number) =>
      sql`DELETE FROM sync.webhook_inbox WHERE seq IN (
            SELECT seq FROM (SELECT seq, sum(octet_length(body)) OVER (ORDER BY seq) - octet_length(body) AS before
                             FROM sync.webhook_inbox WHERE store_id = ${storeId} AND state IN ('applied', 'skipped')) settled
            WHERE before < ${bytes})`

    const add = (d: Received, maxBytes: number) =>
      Effect.gen(function*() {
        const insert = Effect.map(decoded(inserted({ ...d, maxBytes })), (rows) => rows.length > 0)
        if (yield* insert) return "new"
        if (yield* stored(d)) return "duplicate"
        yield* evict(d.storeId, Buffer.byteLength(d.body) + Math.ceil(maxBytes / 10))
        return (yield* insert) ? "new" : "full"
      }) satisfies Effect.Effect<Stored, SqlError>

    const pending = SqlSchema.findAll({
      Request: Schema.Struct({ storeId: Schema.String, limit: Schema.Number }),
      Result: Pending,
      execute: ({ limit, storeId }) =>
        sql`SELECT seq, store_id, topic, body FROM sync.webhook_inbox
            WHERE store_id = ${storeId} AND state = 'pending' ORDER BY seq LIMIT ${limit}`
    })

    const counts = SqlSchema.findAll({
      Request: Schema.String,
      Result: InboxCounts,
      execute: (storeId) =>
        sql`SELECT count(*)::int AS received,
                   (count(*) FILTER (WHERE state = 'applied'))::int AS applied,
                   (count(*) FILTER (WHERE state = 'skipped'))::int AS skipped,
                   (count(*) FILTER (WHERE state = 'failed'))::int AS failed,
                   (count(*) FILTER (WHERE state = 'pending'))::int AS pending,
                   coalesce((SELECT bytes FROM sync.webhook_inbox_usage WHERE store_id = ${storeId}), 0)::float8 AS bytes,
                   to_char(max(received_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS last_received_at
            FROM sync.webhook_inbox WHERE store_id = ${storeId}`
    })

    const oldest = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ age: Schema.NullOr(Schema.Number) }),
      execute: (storeId) =>
        sql`SELECT extract(epoch FROM now() - min(received_at))::float8 AS age
            FROM sync.webhook_inbox WHERE store_id = ${storeId} AND state = 'pending'`
    })

    const waiting = SqlSchema.findAll({
      Request: Schema.Void,
      Result: StoreWaiting,
      execute: () =>
        sql`SELECT store_id, (count(*) FILTER (WHERE state = 'pending'))::int AS pending,
                   (count(*) FILTER (WHERE state = 'failed'))::int AS failed
            FROM sync.webhook_inbox WHERE state IN ('pending', 'failed') GROUP BY store_id`
    })

    return {
      /**
       * Stores a delivery unless this webhook's delivery id, or the same topic and body, was stored before, or the store's
       * inbox would hold more than `maxBytes` of bodies with it. Full, its oldest applied and skipped deliveries (kept only
       * to be looked at) make room first, a tenth of the bound beyond what the delivery needs; pending and failed ones stay.
       */
      add,
      /** A store's oldest pending deliveries, in arrival order. */
      pending: (storeId: string, limit: number): Effect.Effect<ReadonlyArray<Pending>, SqlError> => decoded(pending({ storeId, limit })),
      /** Records how a delivery ended; run it in the transaction that applied it. */
      settle: (seq: number, outcome: Outcome): Effect.Effect<void, SqlError> =>
        sql`UPDATE sync.webhook_inbox SET state = ${outcome.state}, applied_at = now(),
              reason = ${outcome.state === "applied" ? null : outcome.reason}
            WHERE seq = ${seq}`.pipe(Effect.asVoid),
      /** Removes the applied and skipped deliveries received more than `days` ago (failed ones stay, to be looked at). */
      prune: (days: number): Effect.Effect<void, SqlError> =>
        sql`DELETE FROM sync.webhook_inbox
            WHERE state IN ('applied', 'skipped') AND received_at < now() - make_interval(days => ${days})`.pipe(Effect.asVoid),
      /** A store's deliveries by state, for the status page and /metrics. */
      counts: (storeId: string): Effect.Effect<InboxCounts, SqlError> => Effect.map(decoded(counts(storeId)), (rows) => rows[0]!),
      /** How many seconds the store's oldest pending delivery has waited (by the warehouse's clock); none when none waits. */
      oldestPendingAge: (storeId: string): Effect.Effect<Option.Option<number>, SqlError> =>
        Effect.map(decoded(oldest(storeId)), (rows) => Option.fromNullable(rows[0]?.age)),
      /** Pending and failed deliveries of every store that has any, for the workers' page across stores. */
      waiting: decoded(waiting(undefined))
    }
  })
}) {}
