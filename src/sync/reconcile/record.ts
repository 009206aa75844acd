import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import { CurrentStore } from "../../warehouse/current-store.js"
import { fenced } from "../../warehouse/lease.js"
import { capped } from "./compare.js"

/** What a pass found for one resource, as recorded, logged and shown. */
export const ResourceReport = Schema.Struct({
  resource: Schema.String,
  listed: Schema.Number,
  missing: Schema.Array(Schema.Number),
  stale: Schema.Array(Schema.Number),
  gone: Schema.Array(Schema.Number),
  repaired: Schema.Number,
  requests: Schema.Number,
  seconds: Schema.Number
})
export type ResourceReport = typeof ResourceReport.Type

/** One pass over the resources: when, against which upper bound, whether it repaired. */
export interface Pass {
  readonly runId: number
  /** Epoch milliseconds. */
  readonly startedAt: number
  /** Epoch second of the store's clock the pass compared up to. */
  readonly upper: number
  readonly repair: boolean
}

/** The last pass as `status` and /metrics show it: per resource its counts (ids capped as recorded). */
export const LastReconciliation = Schema.Struct({
  run: Schema.NumberFromString,
  started: Schema.String,
  finished: Schema.String,
  repair: Schema.Boolean,
  resources: Schema.Array(Schema.Struct({
    resource: Schema.String,
    listed: Schema.Number,
    missing: Schema.Number,
    stale: Schema.Number,
    gone: Schema.Number,
    repaired: Schema.Number,
    ids: Schema.Array(Schema.Number)
  }))
})
export type LastReconciliation = typeof LastReconciliation.Type

/** The service as its layer makes it; a job makes a store's repositories with it in one go (jobs/layers.ts). */
export const makeReconciliations = Effect.gen(function*() {
  const { storeId } = yield* CurrentStore
  const sql = yield* SqlClient.SqlClient
  const record = (pass: Pass, r: ResourceReport): Effect.Effect<void, SqlError> =>
    fenced(sql)(sql`
      INSERT INTO sync.reconciliations (store_id, run_id, resource, started_at, upper_bound, listed, missing, stale, gone, repair,
                                        repaired, missing_ids, stale_ids, gone_ids, requests, seconds)
      VALUES (${storeId}, ${pass.runId}, ${r.resource}, to_timestamp(${pass.startedAt / 1000}::float8), to_timestamp(${pass.upper}::bigint),
              ${r.listed}, ${r.missing.length}, ${r.stale.length}, ${r.gone.length}, ${pass.repair}, ${r.repaired},
              ${capped(r.missing)}::bigint[], ${capped(r.stale)}::bigint[], ${capped(r.gone)}::bigint[], ${r.requests}, ${r.seconds})`.pipe(Effect.asVoid))
  const last = sql`
    SELECT run_id::text AS run,
           to_char(min(started_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS started,
           to_char(max(finished_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS finished,
           bool_or(repair) AS repair,
           jsonb_agg(jsonb_build_object('resource', resource, 'listed', listed, 'missing', missing, 'stale', stale, 'gone', gone,
                                        'repaired', repaired, 'ids', missing_ids || stale_ids || gone_ids) ORDER BY id) AS resources
    FROM sync.reconciliations
    WHERE store_id = ${storeId} AND run_id = (SELECT max(run_id) FROM sync.reconciliations WHERE store_id = ${storeId})
    GROUP BY run_id`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.Array(LastReconciliation))),
    Effect.orDie,
    Effect.map((rows) => rows[0])
  )
  return {
    record,
    /** The last pass, if any. */
    last
  }
})

/** One store's sync.reconciliations. */
export class Reconciliations extends Effect.Service<Reconciliations>()("shopsync/Reconciliations", { effect: makeReconciliations }) {}
