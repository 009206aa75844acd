import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Schema } from "effect"
import { sqlFile } from "./sql-files.js"

/** Which merge a page goes through: `sql/load/<kind>.sql`, each read by this module alone. */
export type LoadKind = "orders" | "refunds" | "customers" | "products" | "variations"

/** A page ready to load: its documents, whole as the store sent them. */
export interface StagedPage {
  readonly kind: LoadKind
  readonly docs: ReadonlyArray<unknown>
  /** The documents' JSON array as received, when the page is exactly those: staged without serializing them again. */
  readonly json?: string | undefined
  /** Customers only: the md5 of each document's JSON text by id, which the full scan compares before sending anything. */
  readonly hashes?: Readonly<Record<number, string>>
}

/** One day of the store's own /reports/sales. */
export interface ReportDay {
  readonly day: string
  readonly [field: string]: unknown
}

const Hash = Schema.Struct({ id: Schema.NumberFromString, doc_hash: Schema.String })

/**
 * Writes one store's documents into `store.*`: a page is staged in a temp table and merged by its kind's
 * script, inside the caller's transaction when there is one (beside the checkpoint that goes with the page).
 */
export class Loader extends Context.Tag("shopsync/Loader")<Loader, {
  readonly load: (page: StagedPage) => Effect.Effect<void, SqlError>
  /** The stored document hashes of the live customers among `ids`. */
  readonly customerHashes: (ids: ReadonlyArray<number>) => Effect.Effect<ReadonlyMap<number, string>, SqlError>
  /** Stores days of the store's own sales report. */
  readonly loadSalesReport: (days: ReadonlyArray<ReportDay>) => Effect.Effect<void, SqlError>
  /** Stores the daily sums of the days written since they were last stored (analytics.daily_totals). */
  readonly storeDailyTotals: Effect.Effect<void, SqlError>
  /** Empties the store's sales tables (the demo starts from nothing). */
  readonly reset: Effect.Effect<void, SqlError>
}>() {}

export const makeLoader = (storeId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    // One temp table per connection, emptied when the page's transaction commits. Documents of a few KB would be
    // compressed on the way in and decompressed by every statement that reads them: staged, they stay plain.
    const createStage = sql.unsafe(`
      CREATE TEMP TABLE IF NOT EXISTS sync_batch (store_id text NOT NULL, id bigint NOT NULL, doc jsonb NOT NULL) ON COMMIT DELETE ROWS;
      ALTER TABLE sync_batch ALTER COLUMN doc SET STORAGE EXTERNAL`)

    // A document listed twice keeps its last copy.
    const stage = (json: string) =>
      sql`INSERT INTO sync_batch (store_id, id, doc)
          SELECT DISTINCT ON ((d->>'id')::bigint) ${storeId}, (d->>'id')::bigint, d
          FROM jsonb_array_elements(${json}::jsonb) WITH ORDINALITY AS e(d, n)
          ORDER BY (d->>'id')::bigint, n DESC`

    // The commit does not wait for the WAL flush: a server crash can lose the last few committed pages, but only
    // whole transactions, each with its checkpoint, so the stream resumes before them; one disk flush less a page.
    // The staging table empties at commit: a page is always staged and merged in one transaction (the
    // caller's, with its checkpoint, when there is one).
    const load = (page: StagedPage) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql.unsafe("SET LOCAL synchronous_commit = off")
        if (page.docs.length === 0) return
        yield* createStage
        yield* stage(page.json ?? JSON.stringify(page.docs))
        yield* sql.unsafe(sqlFile(`load/${page.kind}`), page.kind === "customers" ? [JSON.stringify(page.hashes ?? {})] : [])
      }))

    const customerHashes = (ids: ReadonlyArray<number>) =>
      sql`SELECT id, doc_hash FROM store.customers WHERE store_id = ${storeId} AND id = ANY(${ids}::bigint[]) AND deleted_at IS NULL`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Hash))),
        Effect.orDie,
        Effect.map((rows) => new Map(rows.map((r) => [r.id, r.doc_hash])))
      )

    const loadSalesReport = (days: ReadonlyArray<ReportDay>) =>
      sql`
          INSERT INTO store.sales_report_daily AS r (store_id, day, sales, orders, items, tax, shipping, discount, customers, refunds, fetched_at)
          SELECT ${storeId}, x.day, x.sales, x.orders, x.items, x.tax, x.shipping, x.discount, x.customers, x.refunds, now()
          FROM jsonb_to_recordset(${JSON.stringify(days)}::jsonb) AS x(day date, sales numeric, orders integer, items integer, tax numeric,
                                                       shipping numeric, discount numeric, customers integer, refunds numeric)
          ON CONFLICT (store_id, day) DO UPDATE SET
            sales = EXCLUDED.sales, orders = EXCLUDED.orders, items = EXCLUDED.items, tax = EXCLUDED.tax,
            shipping = EXCLUDED.shipping, discount = EXCLUDED.discount, customers = EXCLUDED.customers,
            refunds = EXCLUDED.refunds, fetched_at = EXCLUDED.fetched_at`.pipe(Effect.asVoid)

    return Loader.of({
      load,
      customerHashes,
      loadSalesReport,
      storeDailyTotals: sql`SELECT analytics.refresh_daily_totals(${storeId})`.pipe(Effect.asVoid),
      reset: sql.unsafe(sqlFile("load/reset"), [storeId]).pipe(Effect.asVoid)
    })
  })

export const LoaderLive = (storeId: string) => Layer.effect(Loader, makeLoader(storeId))
