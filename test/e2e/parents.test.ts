// A children stream reads its parents a page at a time (src/sync/resources/parents.ts): a store's customers (and
// orders) from the warehouse by SQL, a resource's top-level keys held whole. Generated sets of live and deleted,
// written and unwritten parents and generated questions check both against what the keys say (and, for a pass over the
// recent parents, what the store's modified dates say where the parents have them), and orphans retired by either way
// alike: the children of parents that are gone or deleted, and no others.
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, FastCheck as fc, Layer, ManagedRuntime, Redacted } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { storeWarehouse } from "../../src/jobs/layers.js"
import { byKey, inRange, keyParents, type Parents, rowParents } from "../../src/sync/resources/parents.js"
import { SyncState } from "../../src/sync/state.js"
import { pgLayer } from "../../src/warehouse/database.js"
import type { LiveRows } from "../../src/warehouse/live-rows.js"
import { migrate } from "../../src/warehouse/migrate.js"
import type { Scopes } from "../../src/warehouse/scopes.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const STORE = "parents-t"
const OTHER = "parents-other"

interface Parent {
  readonly id: number
  readonly deleted: boolean
  /** Written since the stream's mark. */
  readonly written: boolean
  /** The store modified it in the last 30 days, long before, or it has no date. */
  readonly modified: "recent" | "old" | "none"
}

/**
 * What each question should answer, from the keys alone, and, where the parents are `dated` (rows of a sales table),
 * from their modified dates: a question about the recent parents counts those the store modified in the last 30 days.
 */
const expected = (parents: ReadonlyArray<Parent>, dated: boolean, q: Q) => {
  const live = parents.filter((p) => !p.deleted).map((p) => String(p.id)).sort(byKey)
  const written = new Set(parents.filter((p) => p.written).map((p) => String(p.id)))
  const recent = new Set(parents.filter((p) => !dated || !q.recent || p.modified === "recent").map((p) => String(p.id)))
  const passed = live.filter((k) => recent.has(k))
  const beyond = (keys: ReadonlyArray<string>, after: string | null) => keys.filter((k) => after === null || byKey(k, after) > 0)
  const changed = live.filter((k) => written.has(k) && !(inRange(q.skip, k) && recent.has(k)))
  return {
    count: passed.length,
    ahead: { count: beyond(passed, q.after).length, nth: beyond(passed, q.after)[q.n - 1] ?? null },
    page: beyond(passed, q.after).filter((k) => q.through === null || byKey(k, q.through) <= 0).slice(0, q.limit),
    changed: beyond(changed, q.after).slice(0, q.limit),
    countChanged: changed.length
  }
}

const parentSet = fc.uniqueArray(
  fc.record({ id: fc.integer({ min: 1, max: 3_000 }), deleted: fc.boolean(), written: fc.boolean(), modified: fc.constantFrom<Parent["modified"]>("recent", "old", "none") }),
  { selector: (p) => p.id, maxLength: 40 }
)
const key = fc.option(fc.integer({ min: 0, max: 3_100 }).map(String), { nil: null })
const question = fc.record({
  after: key,
  n: fc.integer({ min: 1, max: 45 }),
  limit: fc.integer({ min: 1, max: 45 }),
  through: key,
  skip: fc.option(fc.record({ after: key, through: key }), { nil: null }),
  /** About the parents modified in the last 30 days (a pass over the recent ones), not every one. */
  recent: fc.boolean()
})
type Q = typeof question extends fc.Arbitrary<infer T> ? T : never

describe("a children stream's parents, read a page at a time", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let runtime: ManagedRuntime.ManagedRuntime<LiveRows | Scopes | SyncState | SqlClient.SqlClient, unknown>
  beforeAll(async () => {
    db = await freshDatabase()
    const base = pgLayer(Redacted.make(db.url), 2)
    await Effect.runPromise(migrate.pipe(Effect.provide(base)))
    runtime = ManagedRuntime.make(storeWarehouse(STORE).pipe(Layer.provideMerge(base)))
  }, 60_000)
  afterAll(async () => {
    await runtime?.dispose()
    await db?.drop()
  })

  /**
   * The parents as customers (and as attributes, the resource table's top-level keys), the written ones synced now and
   * the others a day ago; another store's rows alongside. Answers the mark between them (an hour ago).
   */
  const seed = async (parents: ReadonlyArray<Parent>) => {
    await sqlRows(db.url, "DELETE FROM store.customers")
    await sqlRows(db.url, "DELETE FROM store.product_attributes")
    for (const store of [STORE, OTHER]) {
      const rows = store === STORE ? parents : parents.map((p) => ({ id: p.id + 1, deleted: !p.deleted, written: !p.written, modified: p.modified }))
      await sqlRows(db.url, `INSERT INTO store.customers (store_id, id, doc, doc_hash, deleted_at, synced_at, date_modified)
        SELECT $1, id, '{}', 'h', CASE WHEN deleted THEN now() END, CASE WHEN written THEN now() ELSE now() - interval '1 day' END,
               CASE modified WHEN 'recent' THEN now() - interval '29 days' WHEN 'old' THEN now() - interval '31 days' END
        FROM unnest($2::bigint[], $3::boolean[], $4::boolean[], $5::text[]) AS p(id, deleted, written, modified)`,
        [store, rows.map((p) => p.id), rows.map((p) => p.deleted), rows.map((p) => p.written), rows.map((p) => p.modified)])
      await sqlRows(db.url, `INSERT INTO store.product_attributes (store_id, scope, key, doc, doc_hash, first_seen_at, changed_at, deleted_at)
        SELECT $1, '', id::text, jsonb_build_object('id', id), 'h', now(), now(), CASE WHEN deleted THEN now() END
        FROM unnest($2::bigint[], $3::boolean[]) AS p(id, deleted)`, [store, rows.map((p) => p.id), rows.map((p) => p.deleted)])
    }
    const [mark] = await sqlRows<{ at: string }>(db.url, "SELECT (now() - interval '1 hour')::text AS at")
    return { live: parents.filter((p) => !p.deleted).map((p) => String(p.id)).sort(byKey), since: mark!.at }
  }

  const answers = (parents: Parents, since: string, q: Q) => {
    const modifiedFrom = q.recent ? Math.floor(Date.now() / 1000) - 30 * 86_400 : null
    const skip = q.skip === null ? null : { ...q.skip, modifiedFrom }
    return runtime.runPromise(Effect.all({
      count: parents.count(modifiedFrom),
      ahead: parents.ahead(q.after, q.n, modifiedFrom),
      page: parents.page(q.after, q.limit, q.through, modifiedFrom),
      changed: parents.changed(since, skip, q.after, q.limit),
      countChanged: parents.countChanged(since, skip)
    }))
  }

  it("answer every question as the keys and modified dates say, in key order, from SQL and held whole alike", async () => {
    await fc.assert(fc.asyncProperty(parentSet, fc.array(question, { minLength: 1, maxLength: 5 }), async (set, questions) => {
      const { since } = await seed(set)
      const ways = [
        { dated: true, parents: rowParents("customers") },
        { dated: false, parents: keyParents("store.product_attributes", Effect.succeed(set.filter((p) => p.written).map((p) => p.id))) }
      ]
      for (const way of ways) {
        const parents = await runtime.runPromise(way.parents)
        for (const q of questions) expect(await answers(parents, since, q), JSON.stringify(q)).toEqual(expected(set, way.dated, q))
      }
    }), { numRuns: 40 })
  })

  it("read no key of a resource's parents when none changed: only a full pass or a changed key asks for them", async () => {
    // A table that does not exist: reading its keys fails, so answers that need none prove none were read.
    const parents = await runtime.runPromise(keyParents("store.no_such_parents", Effect.succeed([])))
    expect(await runtime.runPromise(parents.changed(null, null, null, 10))).toEqual([])
    expect(await runtime.runPromise(parents.countChanged(null, null))).toBe(0)
    await expect(runtime.runPromise(parents.count(null))).rejects.toThrow()
    const changed = await runtime.runPromise(keyParents("store.no_such_parents", Effect.succeed([3])))
    await expect(runtime.runPromise(changed.changed(null, null, null, 10))).rejects.toThrow()
  })

  it("take a customer whose order the warehouse wrote since the mark for changed, and none at all without a mark", async () => {
    await seed([{ id: 7, deleted: false, written: false, modified: "none" }, { id: 8, deleted: false, written: false, modified: "none" }])
    await sqlRows(db.url, "DELETE FROM store.orders WHERE store_id = $1", [STORE])
    await sqlRows(db.url, `INSERT INTO store.orders (store_id, id, status, currency, date_created, date_created_local, date_modified, total, doc, customer_id, synced_at)
      VALUES ($1, 1, 'completed', 'EUR', now(), now(), now(), 1, '{}', 8, now()), ($1, 2, 'completed', 'EUR', now(), now(), now(), 1, '{}', 7, now() - interval '1 day')`, [STORE])
    const [mark] = await sqlRows<{ at: string }>(db.url, "SELECT (now() - interval '1 hour')::text AS at")
    const customers = await runtime.runPromise(rowParents("customers"))
    expect(await runtime.runPromise(customers.changed(mark!.at, null, null, 10))).toEqual(["8"])
    expect(await runtime.runPromise(customers.changed(null, null, null, 10))).toEqual([])
  })

  it("retire the children of parents that are deleted or gone, and only those, for this store alone", async () => {
    await fc.assert(fc.asyncProperty(parentSet, fc.uniqueArray(fc.integer({ min: 1, max: 3_000 }), { maxLength: 30 }), async (set, scopes) => {
      const { live } = await seed(set)
      const ways: ReadonlyArray<Effect.Effect<Parents, unknown, LiveRows | Scopes>> = [rowParents("customers"), keyParents("store.product_attributes", Effect.succeed([]))]
      for (const retire of ways) {
        await sqlRows(db.url, "DELETE FROM store.customer_downloads")
        for (const store of [STORE, OTHER]) {
          await sqlRows(db.url, `INSERT INTO store.customer_downloads (store_id, scope, key, doc, doc_hash, first_seen_at, changed_at)
            SELECT $1, s::text, 'd', '{}', 'h', now(), now() FROM unnest($2::bigint[]) AS s`, [store, scopes])
        }
        const retired = await runtime.runPromise(Effect.flatMap(retire, (p) => p.retireOrphans("store.customer_downloads", null)))
        const orphans = scopes.filter((s) => !live.includes(String(s)))
        expect(retired).toBe(orphans.length)
        const gone = await sqlRows<{ scope: string; store_id: string }>(db.url, "SELECT store_id, scope FROM store.customer_downloads WHERE deleted_at IS NOT NULL")
        expect(gone.map((g) => g.store_id).every((s) => s === STORE)).toBe(true)
        expect(gone.map((g) => g.scope).sort(byKey)).toEqual(orphans.map(String).sort(byKey))
      }
    }), { numRuns: 25 })
  })

  it("with a mark, retire the children of the parents deleted since it alone, for this store alone", async () => {
    const when = fc.constantFrom<"live" | "since" | "before">("live", "since", "before")
    const parents = fc.uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 3_000 }), deleted: when }), { selector: (p) => p.id, maxLength: 40 })
    await fc.assert(fc.asyncProperty(parents, fc.uniqueArray(fc.integer({ min: 1, max: 3_000 }), { maxLength: 30 }), async (set, scopes) => {
      await sqlRows(db.url, "DELETE FROM store.customers")
      await sqlRows(db.url, "DELETE FROM store.customer_downloads")
      for (const store of [STORE, OTHER]) {
        await sqlRows(db.url, `INSERT INTO store.customers (store_id, id, doc, doc_hash, deleted_at)
          SELECT $1, id, '{}', 'h', CASE deleted WHEN 'since' THEN now() WHEN 'before' THEN now() - interval '1 day' END
          FROM unnest($2::bigint[], $3::text[]) AS p(id, deleted)`, [store, set.map((p) => p.id), set.map((p) => p.deleted)])
        await sqlRows(db.url, `INSERT INTO store.customer_downloads (store_id, scope, key, doc, doc_hash, first_seen_at, changed_at)
          SELECT $1, s::text, 'd', '{}', 'h', now(), now() FROM unnest($2::bigint[]) AS s`, [store, scopes])
      }
      const [mark] = await sqlRows<{ at: string }>(db.url, "SELECT (now() - interval '1 hour')::text AS at")
      const retired = await runtime.runPromise(Effect.flatMap(rowParents("customers"), (p) => p.retireOrphans("store.customer_downloads", mark!.at)))
      const since = new Set(set.filter((p) => p.deleted === "since").map((p) => p.id))
      const expected = scopes.filter((s) => since.has(s)).map(String).sort(byKey)
      expect(retired).toBe(expected.length)
      const gone = await sqlRows<{ scope: string; store_id: string }>(db.url, "SELECT store_id, scope FROM store.customer_downloads WHERE deleted_at IS NOT NULL")
      expect(gone.every((g) => g.store_id === STORE)).toBe(true)
      expect(gone.map((g) => g.scope).sort(byKey)).toEqual(expected)
    }), { numRuns: 25 })
  })

  it("take their mark no later than the start of a transaction of theirs still open: what it writes is found once it commits", async () => {
    const writer = new pg.Client({ connectionString: db.url })
    await writer.connect()
    try {
      await writer.query("BEGIN")
      const started = (await writer.query<{ at: string }>("SELECT now()::text AS at")).rows[0]!.at
      await new Promise((resolve) => setTimeout(resolve, 100))
      const mark = () => runtime.runPromise(Effect.flatMap(SyncState, (state) => state.changedMarks("order_notes", 0))).then((m) => m.now)
      const notLater = async (at: string) => (await sqlRows<{ ok: boolean }>(db.url, "SELECT $1::timestamptz <= $2::timestamptz AS ok", [at, started]))[0]!.ok
      expect(await notLater(await mark())).toBe(true)
      await writer.query("COMMIT")
      expect(await notLater(await mark())).toBe(false)
    } finally {
      await writer.end()
    }
  })
})
