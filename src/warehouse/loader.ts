import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, FiberRef, Option, Schema } from "effect"
import { CurrentStore } from "./current-store.js"
import { carryProof, currentGuard, fenced, fencedStatement } from "./lease.js"
import { literal } from "./literal.js"
import { type HeldKey, makeQuarantineRepo } from "./quarantine.js"
import { idOf, type Rejected, rejectedDoc, type Resource } from "./screen.js"
import { isRefusal, refusalText } from "./sql-error.js"
import { sqlFile } from "./sql-files.js"

/** Which merge a page goes through: `sql/load/<kind>.sql`, each read by this module alone. */
export type LoadKind = Resource

/** A page ready to load: its documents, whole as the store sent them. */
export interface StagedPage {
  readonly kind: LoadKind
  readonly docs: ReadonlyArray<unknown>
  /**
   * A JSON array holding the documents as received (a text JSON.parse accepted, or one JSON.stringify wrote): staged
   * without serializing them again. A JSON text never holds a NUL character (JSON writes one as the escape \u0000),
   * which would end the script's text.
   */
  readonly json?: string | undefined
  /** Where `docs` are in `json` (1-based), when it holds other items too; absent: `docs` are all of it. */
  readonly places?: ReadonlyArray<number> | undefined
  /** Customers only: the md5 of each document's JSON text by id, which the full scan compares before sending anything. */
  readonly hashes?: Readonly<Record<number, string>>
  /** Documents of the page that did not fit their schema: quarantined with it. */
  readonly rejected?: ReadonlyArray<Rejected>
  /** Ids of the documents whose NUL characters were removed. */
  readonly cleaned?: ReadonlyArray<string>
  /**
   * A backfill's page: a document that differs from the warehouse's copy replaces it even when that copy's
   * date_modified is later (a forged date in the future would else outrank the store's truth for good).
   */
  readonly replace?: boolean
}

/** How a script's values are written in it: as literals to run it, as placeholders to show it. */
type Quote = (text: string) => string

/** One day of the store's own /reports/sales. */
export interface ReportDay {
  readonly day: string
  readonly [field: string]: unknown
}

const Hash = Schema.Struct({ id: Schema.NumberFromString, doc_hash: Schema.String })

/** The service as its layer makes it; a job makes a store's repositories with it in one go (jobs/layers.ts). */
export const makeLoader = Effect.gen(function*() {
  const { storeId } = yield* CurrentStore
  const sql = yield* SqlClient.SqlClient
  const quarantine = makeQuarantineRepo(sql, storeId)
  // Every write proves the run's lease first (see lease.ts); a page's quarantine rows are written with the page.
  const write = fenced(sql)

  // One temp table per connection, emptied when the page's transaction commits. Documents of a few KB would be
  // compressed on the way in and decompressed by every statement that reads them: staged, they stay plain, and in
  // the row up to a page's size (toast_tuple_target), where no statement has to fetch them from a TOAST table (set
  // once, when the table is made: altered at every page, its catalog row would be rewritten each time).
  // `known`: the warehouse holds a version of the document (set by the merges with children to replace).
  // The commit does not wait for the WAL flush: a server crash can lose the last few committed pages, but only
  // whole transactions, each with its checkpoint, so the stream resumes before them; one disk flush less a page.
  // The merge knows the store (shopsync.store), whether the page replaces by content (shopsync.replace, read by
  // load/orders.sql) and the customers' hashes (shopsync.hashes). The table empties at commit; a half of a refused
  // page, or a second page of the same transaction (an order and then its refunds), is staged after another merged,
  // so it empties it first.
  const prepareStage = (page: StagedPage, quote: Quote) => `
    SET LOCAL synchronous_commit = off;
    SELECT set_config('shopsync.store', ${quote(storeId)}, true),
           set_config('shopsync.replace', '${page.replace === true ? "on" : "off"}', true),
           set_config('shopsync.hashes', ${quote(JSON.stringify(page.hashes ?? {}))}, true);
    DO $stage$ BEGIN
      IF to_regclass('pg_temp.sync_batch') IS NULL THEN
        CREATE TEMP TABLE sync_batch (store_id text NOT NULL, id bigint NOT NULL, doc jsonb NOT NULL, known boolean NOT NULL DEFAULT false)
          WITH (toast_tuple_target = 8160) ON COMMIT DELETE ROWS;
        ALTER TABLE sync_batch ALTER COLUMN doc SET STORAGE EXTERNAL;
      END IF;
    END $stage$;
    DELETE FROM sync_batch`

  // A document listed twice keeps its last copy. The page's JSON goes in as a literal (a script of several
  // statements takes no parameters): dollar-quoted with a tag it does not hold.
  const stage = (json: string, places: ReadonlyArray<number> | undefined, quote: Quote) => `
    INSERT INTO sync_batch (store_id, id, doc)
    SELECT DISTINCT ON ((d->>'id')::bigint) ${quote(storeId)}, (d->>'id')::bigint, d
    FROM jsonb_array_elements(${quote(json)}::jsonb) WITH ORDINALITY AS e(d, n)
    ${places === undefined ? "" : `WHERE n = ANY('{${places.map((n) => Math.trunc(n)).join(",")}}'::int[])`}
    ORDER BY (d->>'id')::bigint, n DESC`

  /**
   * A script of several statements on the transaction's connection. Its span shows it with its values left out
   * (`shown`), as @effect/sql's spans show statements with placeholders: a trace holds no customer's data.
   */
  const runScript = (connection: Connection, script: string, shown: string) =>
    connection.executeRaw(script, []).pipe(
      Effect.asVoid,
      Effect.withSpan("sql.execute", { kind: "client", attributes: { "db.operation.name": "executeRaw", "db.query.text": shown } }))

  /**
   * A page staged and merged in one round trip: a script carrying the lease's proof when the transaction owes it
   * (before the savepoint, where a refusal does not undo it), then the page in a savepoint of its own. A refusal
   * rolls the savepoint back (the transaction goes on, for the halves); the script is run in a transaction of
   * its own when the caller has none.
   */
  const merge = (page: StagedPage, docs: ReadonlyArray<unknown>, json: string | undefined, places: ReadonlyArray<number> | undefined): Effect.Effect<void, SqlError> =>
    Effect.gen(function*() {
      if (docs.length === 0) return
      const tx = yield* Effect.serviceOption(SqlClient.TransactionConnection)
      if (Option.isNone(tx)) return yield* sql.withTransaction(merge(page, docs, json, places))
      const proof = yield* carryProof
      const [staged, stagedPlaces] = json === undefined ? [JSON.stringify(docs), undefined] : [json, places]
      const script = (quote: Quote, proved: Option.Option<string>) => [
        ...Option.toArray(proved),
        "SAVEPOINT shopsync_page",
        prepareStage(page, quote),
        stage(staged, stagedPlaces, quote),
        sqlFile(`load/${page.kind}`),
        "RELEASE SAVEPOINT shopsync_page"
      ].join(";\n")
      const run = runScript(tx.value[0], script(literal, Option.map(proof, (p) => p.text)), script(() => "$value", Option.map(proof, (p) => p.shown))).pipe(
        Effect.catchIf(isRefusal, (e) => Effect.zipRight(sql.unsafe("ROLLBACK TO SAVEPOINT shopsync_page; RELEASE SAVEPOINT shopsync_page"), Effect.fail(e))))
      yield* Option.match(proof, { onNone: () => run, onSome: (p) => p.carried(run) })
    }).pipe(Effect.withSpan("warehouse.merge", { attributes: { "shopsync.kind": page.kind, "shopsync.docs": docs.length } }))

  /** Merges `docs`; when PostgreSQL refuses them, each half on its own (a savepoint each), down to the documents refused. */
  const isolate = (page: StagedPage, docs: ReadonlyArray<unknown>, json?: string, places?: ReadonlyArray<number>): Effect.Effect<Array<Rejected>, SqlError> =>
    merge(page, docs, json, places).pipe(
      Effect.as([]),
      Effect.catchIf(isRefusal, (e) => {
        if (docs.length === 1) return Effect.succeed([rejectedDoc(page.kind, docs[0], "load", refusalText(e))])
        const middle = Math.ceil(docs.length / 2)
        const halves = [docs.slice(0, middle), docs.slice(middle)]
        return Effect.map(Effect.forEach(halves, (part) => isolate(page, part)), (found) => found.flat())
      })
    )

  // Each resource's first look at its quarantine in a run (its stream's start, or its first page) is served by one
  // read of the store's whole quarantine, taken by the run's first look and shared by every resource (four
  // statements a sync before); a later look (a stream's retry of its documents, at its end) reads the table again.
  // Outside a run, every look reads the table.
  let whole: { readonly run: number; readonly byStream: ReadonlyMap<string, ReadonlyArray<HeldKey>>; readonly looked: Set<LoadKind> } | undefined
  const reading = yield* Effect.makeSemaphore(1)
  const wholeOf = (run: number) =>
    reading.withPermits(1)(Effect.suspend(() =>
      whole?.run === run ? Effect.succeed(whole) : Effect.map(quarantine.heldByStream, (byStream) => (whole = { run, byStream, looked: new Set() }))))
  const look = (kind: LoadKind) =>
    Effect.flatMap(FiberRef.get(currentGuard), (guard) =>
      Option.isNone(guard) ? quarantine.held(kind) : Effect.flatMap(wholeOf(guard.value.token), (taken) =>
        taken.looked.has(kind)
          ? quarantine.held(kind)
          : Effect.sync(() => (taken.looked.add(kind), taken.byStream.get(kind) ?? []))))
  // The ids each resource holds in quarantine, read once: a page releases ids only when it loads one of them.
  const heldIds = new Map<LoadKind, Set<string>>()
  const held = (kind: LoadKind) =>
    Effect.tap(look(kind), (rows) => {
      if (!heldIds.has(kind)) heldIds.set(kind, new Set(rows.map((r) => r.id)))
    })
  const heldOf = (kind: LoadKind) => {
    const known = heldIds.get(kind)
    return known ? Effect.succeed(known) : Effect.map(held(kind), () => heldIds.get(kind)!)
  }

  const load = (page: StagedPage) =>
    write(Effect.gen(function*() {
      const refused = yield* isolate(page, page.docs, page.json, page.places)
      const rejected = [...(page.rejected ?? []), ...refused]
      const held = yield* heldOf(page.kind)
      const refusedIds = new Set(refused.map((r) => r.id))
      const landed = held.size === 0 ? [] : page.docs.map(idOf).filter((id) => held.has(id) && !refusedIds.has(id))
      for (const id of landed) held.delete(id)
      for (const r of rejected) held.add(r.id)
      yield* quarantine.release(page.kind, landed)
      yield* quarantine.hold(page.kind, rejected)
      yield* quarantine.noteCleaned(page.kind, page.cleaned ?? [])
      return rejected.map((r) => r.id)
    })).pipe(Effect.withSpan("warehouse.load", { attributes: { "shopsync.kind": page.kind, "shopsync.docs": page.docs.length } }))

  const customerHashes = (ids: ReadonlyArray<number>) =>
    sql`SELECT id, doc_hash FROM store.customers WHERE store_id = ${storeId} AND id = ANY(${ids}::bigint[]) AND deleted_at IS NULL`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Hash))),
      Effect.orDie,
      Effect.map((rows) => new Map(rows.map((r) => [r.id, r.doc_hash])))
    )

  // The days of the span are stored and leave sync.report_days (the days the tables' triggers noted as changed) in
  // one statement: a run that stops before it leaves them pending, and the next run asks for them again. The proof
  // is one CTE both writes read: evaluated once, before either writes.
  const loadSalesReport = (days: ReadonlyArray<ReportDay>, span: { readonly first: string; readonly last: string }) =>
    fencedStatement(sql)((proved) => sql`
        WITH proof AS (SELECT ${proved} AS ok),
        stored AS (
          INSERT INTO store.sales_report_daily AS r (store_id, day, sales, orders, items, tax, shipping, discount, customers, refunds, fetched_at)
          SELECT ${storeId}, x.day, x.sales, x.orders, x.items, x.tax, x.shipping, x.discount, x.customers, x.refunds, now()
          FROM jsonb_to_recordset(${JSON.stringify(days)}::jsonb) AS x(day date, sales numeric, orders integer, items integer, tax numeric,
                                                       shipping numeric, discount numeric, customers integer, refunds numeric)
          WHERE (SELECT ok FROM proof)
          ON CONFLICT (store_id, day) DO UPDATE SET
            sales = EXCLUDED.sales, orders = EXCLUDED.orders, items = EXCLUDED.items, tax = EXCLUDED.tax,
            shipping = EXCLUDED.shipping, discount = EXCLUDED.discount, customers = EXCLUDED.customers,
            refunds = EXCLUDED.refunds, fetched_at = EXCLUDED.fetched_at)
        DELETE FROM sync.report_days
        WHERE store_id = ${storeId} AND day BETWEEN ${span.first}::date AND ${span.last}::date AND (SELECT ok FROM proof)`.pipe(Effect.asVoid))

  return {
    /**
     * Loads a page; the documents PostgreSQL refuses are found by halves, each half in a savepoint, and quarantined
     * with its own words, with the page's `rejected`; quarantined documents that land leave. Run it in a transaction,
     * so that the page and its quarantine rows commit together. Returns the ids set aside.
     */
    load,
    /** A resource's quarantined documents, to read again. */
    held,
    /** Quarantined documents the store no longer has (404) leave. */
    release: (kind: LoadKind, ids: ReadonlyArray<string>): Effect.Effect<void, SqlError> =>
      Effect.zipRight(Effect.flatMap(heldOf(kind), (held) => Effect.sync(() => ids.forEach((id) => held.delete(id)))), write(quarantine.release(kind, ids))),
    /** The stored document hashes of the live customers among `ids`. */
    customerHashes,
    /** Stores days of the store's own sales report, those of [first, last] then no longer pending (sync.report_days). */
    loadSalesReport,
    /** Stores the daily sums of the days written since they were last stored (analytics.daily_totals). */
    storeDailyTotals: fencedStatement(sql)((proved) => sql`SELECT analytics.refresh_daily_totals(${storeId}) WHERE ${proved}`.pipe(Effect.asVoid)),
    /** Empties the store's sales tables (the demo starts from nothing). */
    reset: write(sql.unsafe(sqlFile("load/reset"), [storeId]).pipe(Effect.asVoid))
  }
})

/**
 * Writes one store's documents into `store.*`: a page is staged in a temp table and merged by its kind's
 * script, inside the caller's transaction when there is one (beside the checkpoint that goes with the page).
 */
export class Loader extends Effect.Service<Loader>()("shopsync/Loader", { effect: makeLoader }) {}
