import * as Singleton from "@effect/cluster/Singleton"
import * as Snowflake from "@effect/cluster/Snowflake"
import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Duration, Effect, Schedule } from "effect"
import { Inbox } from "../webhooks/inbox.js"
import { Store } from "./store-entity.js"

/**
 * The message storage keeps every processed message (and its reply) for good: it is what makes a repeated key a
 * duplicate. A store on 5 minutes adds 288 rows a day, so processed Store messages older than `keep` are deleted with
 * their replies. Their keys are past slots or finished manual jobs; a manual job retried after `keep` would run again.
 * A message's age is in its id (a snowflake: milliseconds since Snowflake.constEpochMillis, shifted left 22 bits).
 */
const prune = (keep: Duration.Duration) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cutoff = (BigInt((yield* Clock.currentTimeMillis) - Duration.toMillis(keep) - Snowflake.constEpochMillis) << 22n).toString()
    const rows = yield* sql<{ deleted: string }>`
      WITH old AS (
        DELETE FROM cluster_messages WHERE entity_type = ${Store.type} AND processed AND id < ${cutoff} RETURNING id
      ), replies AS (
        DELETE FROM cluster_replies WHERE request_id IN (SELECT id FROM old)
      )
      SELECT count(*)::text AS deleted FROM old`
    const deleted = Number(rows[0]?.deleted ?? 0)
    if (deleted > 0) yield* Effect.logInfo(`cluster: pruned ${deleted} processed store message(s) older than ${Duration.format(keep)}`)
  })

/** Applied and skipped webhook deliveries are kept this many days, as `serve` keeps them (failed ones stay). */
const INBOX_DAYS = 30

/** The pruning of old messages and of old inbox deliveries, on one runner of the cluster, every `every`. */
export const StoreMessageRetentionLive = (options: { readonly keep: Duration.DurationInput; readonly every: Duration.DurationInput }) =>
  Singleton.make(
    "shopsync/StoreMessageRetention",
    prune(Duration.decode(options.keep)).pipe(
      Effect.zipRight(Effect.flatMap(Inbox, (inbox) => inbox.prune(INBOX_DAYS)).pipe(Effect.provide(Inbox.Default))),
      Effect.catchAllCause((cause) => Effect.logWarning("cluster: pruning store messages or old webhook deliveries failed, next round retries", cause)),
      Effect.repeat(Schedule.spaced(options.every))
    )
  )
