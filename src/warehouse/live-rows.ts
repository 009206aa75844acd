import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import { CurrentStore } from "./current-store.js"
import { fenced } from "./lease.js"
import { sqlFile } from "./sql-files.js"

/** Tables whose rows carry the date a store listing filters on: the column compared, per table. */
const DATED = { orders: "date_modified", products: "date_modified", refunds: "date_created" } as const
export type DatedTable = keyof typeof DATED

/** Tables a reconciliation compares with the store's listings: the date compared, and whether a status marks trash. */
const STAMPED = {
  orders: { at: "date_modified", trash: true },
  products: { at: "date_modified", trash: true },
  refunds: { at: "date_created", trash: false },
  customers: { at: "date_modified", trash: false }
} as const
export type StampedTable = keyof typeof STAMPED

/** A live row as a reconciliation compares it: its id, its date (epoch second, null when none), whether it is trash. */
export interface Stamp {
  readonly id: number
  readonly at: number | null
  readonly trash: boolean
}
/** An id bound as a bigint parameter: ±Infinity (no bound) as the column's own extremes. */
const idBound = (n: number) => (n === Infinity ? "9223372036854775807" : n === -Infinity ? "-9223372036854775808" : n)
const Stamps = Schema.Array(Schema.Struct({ id: Schema.NumberFromString, at: Schema.NullOr(Schema.NumberFromString), trash: Schema.Boolean }))

/** Tables whose live ids parent another resource. */
export type ParentTable = "orders" | "customers"

/**
 * Parent keys after `after` (all when null) up to `through` (no end when null), in id order; with `modifiedFrom` (an
 * epoch second), only the parents the store modified since (a full pass over the recent parents).
 */
export interface KeyRange {
  readonly after: string | null
  readonly through: string | null
  readonly modifiedFrom?: number | null
}

const Ids = Schema.Array(Schema.Struct({ id: Schema.NumberFromString }))
const Keys = Schema.Array(Schema.Struct({ key: Schema.String }))
const Start = Schema.Array(Schema.Struct({ at: Schema.NullOr(Schema.NumberFromString) }))
const Count = Schema.Array(Schema.Struct({ n: Schema.Number }))
const StartAndCount = Schema.Array(Schema.Struct({ at: Schema.NullOr(Schema.NumberFromString), n: Schema.Number }))
const Ahead = Schema.Array(Schema.Struct({ count: Schema.Number, nth: Schema.NullOr(Schema.String) }))

/** The service as its layer makes it; a job makes a store's repositories with it in one go (jobs/layers.ts). */
export const makeLiveRows = Effect.gen(function*() {
  const { storeId } = yield* CurrentStore
  const sql = yield* SqlClient.SqlClient
  const ids = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    query.pipe(Effect.flatMap(Schema.decodeUnknown(Ids)), Effect.orDie, Effect.map((rows) => rows.map((r) => r.id)))
  /** Rows of `alias` the store modified since `from` (an epoch second; all when null): never null, a row without a date is not. */
  const modifiedSince = (alias: string, from: number | null) =>
    sql`(${from}::bigint IS NULL OR ${sql(alias)}.date_modified >= to_timestamp(${from}::bigint)) IS TRUE`
  /** The live rows of `table` (as p) written since `since`, but those in `skip`. */
  const changedRows = (table: ParentTable, since: string, skip: KeyRange | null) => {
    // Customers: one set of ids from both synced_at indexes. Written as `synced_at >= … OR id IN (…)`, the OR kept
    // the planner from either index: it read every customer of the store on every run.
    const written = table === "orders"
      ? sql`p.synced_at >= ${since}::timestamptz`
      : sql`p.id IN (SELECT c.id FROM store.customers c WHERE c.store_id = ${storeId} AND c.synced_at >= ${since}::timestamptz
                     UNION SELECT o.customer_id FROM store.orders o WHERE o.store_id = ${storeId} AND o.synced_at >= ${since}::timestamptz)`
    const skipped = skip === null
      ? sql`false`
      : sql`(p.id > ${skip.after ?? "-1"}::bigint AND (${skip.through}::bigint IS NULL OR p.id <= ${skip.through}::bigint)
             AND ${modifiedSince("p", skip.modifiedFrom ?? null)})`
    return sql`${sql(`store.${table}`)} p WHERE p.store_id = ${storeId} AND p.deleted_at IS NULL AND ${written} AND NOT ${skipped}`
  }
  /** Rows of `alias` written since run `runId` began (synced_at is the writing transaction's start; the run's row came first). */
  const writtenInRun = (alias: string, runId: number) =>
    sql`${sql(alias)}.synced_at >= (SELECT started_at FROM sync.runs WHERE id = ${runId})`
  const stampColumns = (table: StampedTable) =>
    sql`id, extract(epoch FROM ${sql(STAMPED[table].at)})::bigint AS at, ${STAMPED[table].trash ? sql`coalesce(status = 'trash', false)` : sql`false`} AS trash`
  const inRange = (table: DatedTable, from: number, to: number) =>
    sql`${sql(`store.${table}`)} WHERE store_id = ${storeId} AND deleted_at IS NULL
        AND ${sql(DATED[table])} >= to_timestamp(${from}::bigint) AND ${sql(DATED[table])} < to_timestamp(${to}::bigint)`

  return {
    /**
     * The epoch second of the earliest live row by the table's listing date (null when there is none), and the live
     * rows dated before `upper`: one statement for the range a deletion check starts from and its count.
     */
    liveRange: (table: DatedTable, upper: number): Effect.Effect<{ readonly start: number | null; readonly count: number }, SqlError> =>
      sql`SELECT extract(epoch FROM min(${sql(DATED[table])}))::bigint AS at,
                 (count(*) FILTER (WHERE ${sql(DATED[table])} < to_timestamp(${upper}::bigint)))::integer AS n
          FROM ${sql(`store.${table}`)} WHERE store_id = ${storeId} AND deleted_at IS NULL`.pipe(
        Effect.flatMap(Schema.decodeUnknown(StartAndCount)), Effect.orDie, Effect.map((rows) => ({ start: rows[0]?.at ?? null, count: rows[0]?.n ?? 0 }))),
    /** Live rows dated in [from, to) (epoch seconds), but those of `except`. */
    countRange: (table: DatedTable, from: number, to: number, except: ReadonlyArray<number> = []): Effect.Effect<number, SqlError> =>
      sql`SELECT count(*)::integer AS n FROM ${inRange(table, from, to)} AND id <> ALL(${except}::bigint[])`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Count)), Effect.orDie, Effect.map((rows) => rows[0]?.n ?? 0)),
    idsInRange: (table: DatedTable, from: number, to: number): Effect.Effect<ReadonlyArray<number>, SqlError> =>
      ids(sql`SELECT id FROM ${inRange(table, from, to)}`),
    markDeleted: (table: StampedTable, deleted: ReadonlyArray<number>): Effect.Effect<void, SqlError> =>
      fenced(sql)(markDeleted(sql, storeId, table, deleted)),
    /** The highest customer id the warehouse has seen (deleted ones included); null when none. */
    lastCustomerId: sql`SELECT max(id)::bigint AS at FROM store.customers WHERE store_id = ${storeId}`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Start)), Effect.orDie, Effect.map((rows) => rows[0]?.at ?? null)),
    /**
     * Live parents (the ids of order notes' orders, trashed ones included, and of customer downloads' customers), a
     * page at a time in id order: up to `limit` after `after` (from the first when null), none past `through`.
     */
    parentsAfter: (table: ParentTable, after: string | null, limit: number, through: string | null, modifiedFrom: number | null): Effect.Effect<ReadonlyArray<string>, SqlError> =>
      sql`SELECT p.id::text AS key FROM ${sql(`store.${table}`)} p
          WHERE p.store_id = ${storeId} AND p.deleted_at IS NULL AND p.id > ${after ?? "-1"}::bigint
            AND (${through}::bigint IS NULL OR p.id <= ${through}::bigint) AND ${modifiedSince("p", modifiedFrom)}
          ORDER BY p.id LIMIT ${limit}`.pipe(Effect.flatMap(Schema.decodeUnknown(Keys)), Effect.orDie, Effect.map((rows) => rows.map((r) => r.key))),
    /** How many live parents come after `after` (all when null), and the `n`-th of them (null when fewer). */
    parentsAhead: (table: ParentTable, after: string | null, n: number, modifiedFrom: number | null): Effect.Effect<{ readonly count: number; readonly nth: string | null }, SqlError> =>
      sql`WITH ahead AS (SELECT p.id FROM ${sql(`store.${table}`)} p
                         WHERE p.store_id = ${storeId} AND p.deleted_at IS NULL AND p.id > ${after ?? "-1"}::bigint AND ${modifiedSince("p", modifiedFrom)})
          SELECT (SELECT count(*)::integer FROM ahead) AS count,
                 (SELECT id::text AS key FROM ahead ORDER BY id OFFSET ${Math.max(0, n - 1)} LIMIT 1) AS nth`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Ahead)), Effect.orDie, Effect.map((rows) => rows[0] ?? { count: 0, nth: null })),
    /**
     * Live parents written since `since` (a timestamptz), but those in `skip`: up to `limit` after `after`, in id
     * order. Orders the warehouse wrote; customers it wrote or whose orders it wrote.
     */
    changedParents: (table: ParentTable, since: string, skip: KeyRange | null, after: string | null, limit: number): Effect.Effect<ReadonlyArray<string>, SqlError> =>
      sql`SELECT p.id::text AS key FROM ${changedRows(table, since, skip)} AND p.id > ${after ?? "-1"}::bigint ORDER BY p.id LIMIT ${limit}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Keys)), Effect.orDie, Effect.map((rows) => rows.map((r) => r.key))),
    countChangedParents: (table: ParentTable, since: string, skip: KeyRange | null): Effect.Effect<number, SqlError> =>
      sql`SELECT count(*)::integer AS n FROM ${changedRows(table, since, skip)}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Count)), Effect.orDie, Effect.map((rows) => rows[0]?.n ?? 0)),
    /** Variable products: the parents of variations. */
    variableProducts: ids(
      sql`SELECT id FROM store.products WHERE store_id = ${storeId} AND deleted_at IS NULL AND type = 'variable' ORDER BY id`
    ),
    /** A parent's complete child list was read: its children missing from `present` are gone. */
    markMissingChildren: (table: "refunds" | "product_variations", parentId: number, present: ReadonlyArray<number>): Effect.Effect<void, SqlError> =>
      fenced(sql)(markMissingChildren(sql, storeId, table, parentId, present)),
    /**
     * Up to `limit` live rows of `table` with ids in (`after`, `through`], in id order, with their date and trash
     * status: a reconciliation reads them a window and a chunk at a time. The bounds are never null (±Infinity: none):
     * as `$3 IS NULL OR id <= $3`, a generic plan could only filter on it, not stop the index scan, reading the rest of
     * the table at every call.
     */
    stampsBetween: (table: StampedTable, after: number, through: number, limit: number): Effect.Effect<ReadonlyArray<Stamp>, SqlError> =>
      sql`SELECT ${stampColumns(table)} FROM ${sql(`store.${table}`)}
          WHERE store_id = ${storeId} AND deleted_at IS NULL AND id > ${idBound(after)}::bigint AND id <= ${idBound(through)}::bigint
          ORDER BY id LIMIT ${limit}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Stamps)), Effect.orDie),
    /** The live rows of `table` among `rows` (ids), with their date and trash status, in id order. */
    stampsOf: (table: StampedTable, rows: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Stamp>, SqlError> =>
      sql`SELECT ${stampColumns(table)} FROM ${sql(`store.${table}`)}
          WHERE store_id = ${storeId} AND deleted_at IS NULL AND id = ANY(${rows}::bigint[]) ORDER BY id`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Stamps)), Effect.orDie),
    /** Stores without GET /refunds: the orders whose refund lists must be read (see the script). */
    ordersWithRefundsToRead: (fullPass: boolean): Effect.Effect<ReadonlyArray<number>, SqlError> =>
      ids(sql.unsafe(sqlFile("live-rows/refunds_orders_to_read"), [storeId, fullPass])),
    /** The registered customers on the live orders run `runId` wrote (or anyone since it began: a webhook). */
    buyersInRun: (runId: number): Effect.Effect<ReadonlyArray<number>, SqlError> =>
      ids(sql`SELECT DISTINCT customer_id AS id FROM store.orders
              WHERE store_id = ${storeId} AND deleted_at IS NULL AND customer_id > 0 AND ${writtenInRun("orders", runId)} ORDER BY customer_id`),
    /** Of those orders, the live ones not in the trash whose documents list a refund the warehouse does not hold live (see the script). */
    ordersListingUnheldRefunds: (runId: number): Effect.Effect<ReadonlyArray<number>, SqlError> =>
      ids(sql.unsafe(sqlFile("live-rows/orders_listing_unheld_refunds"), [storeId, runId]))
  }
})

/**
 * The rows one store still has in `store.*` (deleted_at IS NULL), and marking the ones the store no longer has.
 * Nothing is ever removed: a deleted row keeps its data with the time it was found gone (the tables' triggers
 * note the days it counted on, for the daily sums and the store's report).
 */
export class LiveRows extends Effect.Service<LiveRows>()("shopsync/LiveRows", { effect: makeLiveRows }) {}

const markDeleted = (sql: SqlClient.SqlClient, storeId: string, table: StampedTable, ids: ReadonlyArray<number>) =>
  sql`UPDATE ${sql(`store.${table}`)} SET deleted_at = now()
      WHERE store_id = ${storeId} AND id = ANY(${ids}::bigint[]) AND deleted_at IS NULL`.pipe(Effect.asVoid)

const markMissingChildren = (
  sql: SqlClient.SqlClient,
  storeId: string,
  table: "refunds" | "product_variations",
  parentId: number,
  present: ReadonlyArray<number>
) =>
  sql`UPDATE ${sql(`store.${table}`)} SET deleted_at = now()
      WHERE store_id = ${storeId} AND ${sql(table === "refunds" ? "order_id" : "product_id")} = ${parentId} AND deleted_at IS NULL
        AND NOT (id = ANY(${present}::bigint[]))`.pipe(Effect.asVoid)
