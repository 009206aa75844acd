// A children stream reads its parents a page at a time (src/sync/resources/parents.ts): a store's customers (and
// orders) from the warehouse by SQL, a resource's top-level keys held whole. Generated sets of live and deleted
// parents and generated questions check both against what the live keys say, and orphans retired by either way
// alike: the children of parents that are gone or deleted, and no others.
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, FastCheck as fc, Layer, ManagedRuntime, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { storeWarehouse } from "../../src/jobs/layers.js"
import { byKey, keyParents, type Parents, rowParents } from "../../src/sync/resources/parents.js"
import { pgLayer } from "../../src/warehouse/database.js"
import type { LiveRows } from "../../src/warehouse/live-rows.js"
import { migrate } from "../../src/warehouse/migrate.js"
import type { Scopes } from "../../src/warehouse/scopes.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const STORE = "parents-t"
const OTHER = "parents-other"

/** What each question should answer, from the live keys alone. */
const expected = (live: ReadonlyArray<string>) => {
  const beyond = (after: string | null) => live.filter((k) => after === null || byKey(k, after) > 0)
  return {
    count: live.length,
    ahead: (after: string | null, n: number) => ({ count: beyond(after).length, nth: beyond(after)[n - 1] ?? null }),
    page: (after: string | null, limit: number, through: string | null) => beyond(after).filter((k) => through === null || byKey(k, through) <= 0).slice(0, limit),
    among: (keys: ReadonlyArray<string>) => [...new Set(keys)].filter((k) => live.includes(k)).sort(byKey)
  }
}

const parentSet = fc.uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 3_000 }), deleted: fc.boolean() }), { selector: (p) => p.id, maxLength: 40 })
const question = fc.record({
  after: fc.option(fc.integer({ min: 0, max: 3_100 }).map(String), { nil: null }),
  n: fc.integer({ min: 1, max: 45 }),
  limit: fc.integer({ min: 1, max: 45 }),
  through: fc.option(fc.integer({ min: 0, max: 3_100 }).map(String), { nil: null }),
  keys: fc.array(fc.integer({ min: 1, max: 3_000 }).map(String), { maxLength: 20 })
})

describe("a children stream's parents, read a page at a time", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let runtime: ManagedRuntime.ManagedRuntime<LiveRows | Scopes | SqlClient.SqlClient, unknown>
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

  /** The parents as customers (and as attributes, the resource table's top-level keys); another store's rows alongside. */
  const seed = async (parents: ReadonlyArray<{ id: number; deleted: boolean }>) => {
    await sqlRows(db.url, "DELETE FROM store.customers")
    await sqlRows(db.url, "DELETE FROM store.product_attributes")
    for (const store of [STORE, OTHER]) {
      const rows = store === STORE ? parents : parents.map((p) => ({ id: p.id + 1, deleted: !p.deleted }))
      await sqlRows(db.url, `INSERT INTO store.customers (store_id, id, doc, doc_hash, deleted_at)
        SELECT $1, id, '{}', 'h', CASE WHEN deleted THEN now() END FROM unnest($2::bigint[], $3::boolean[]) AS p(id, deleted)`,
        [store, rows.map((p) => p.id), rows.map((p) => p.deleted)])
      await sqlRows(db.url, `INSERT INTO store.product_attributes (store_id, scope, key, doc, doc_hash, first_seen_at, changed_at, deleted_at)
        SELECT $1, '', id::text, jsonb_build_object('id', id), 'h', now(), now(), CASE WHEN deleted THEN now() END
        FROM unnest($2::bigint[], $3::boolean[]) AS p(id, deleted)`, [store, rows.map((p) => p.id), rows.map((p) => p.deleted)])
    }
    return parents.filter((p) => !p.deleted).map((p) => String(p.id)).sort(byKey)
  }

  const answers = (parents: Parents, q: typeof question extends fc.Arbitrary<infer Q> ? Q : never) =>
    runtime.runPromise(Effect.all({
      count: parents.count,
      ahead: parents.ahead(q.after, q.n),
      page: parents.page(q.after, q.limit, q.through),
      among: parents.among(q.keys)
    }))

  it("answer every question as the live keys say, in key order, from SQL and held whole alike", async () => {
    await fc.assert(fc.asyncProperty(parentSet, fc.array(question, { minLength: 1, maxLength: 5 }), async (set, questions) => {
      const live = await seed(set)
      const want = expected(live)
      for (const parents of [await runtime.runPromise(rowParents("customers")), await runtime.runPromise(keyParents("store.product_attributes"))]) {
        for (const q of questions) {
          const got = await answers(parents, q)
          expect({ ...got, among: [...got.among].sort(byKey) }, JSON.stringify(got)).toEqual({
            count: want.count, ahead: want.ahead(q.after, q.n), page: want.page(q.after, q.limit, q.through), among: want.among(q.keys)
          })
        }
      }
    }), { numRuns: 40 })
  })

  it("retire the children of parents that are deleted or gone, and only those, for this store alone", async () => {
    await fc.assert(fc.asyncProperty(parentSet, fc.uniqueArray(fc.integer({ min: 1, max: 3_000 }), { maxLength: 30 }), async (set, scopes) => {
      const live = await seed(set)
      const ways: ReadonlyArray<Effect.Effect<Parents, unknown, LiveRows | Scopes>> = [rowParents("customers"), keyParents("store.product_attributes")]
      for (const retire of ways) {
        await sqlRows(db.url, "DELETE FROM store.customer_downloads")
        for (const store of [STORE, OTHER]) {
          await sqlRows(db.url, `INSERT INTO store.customer_downloads (store_id, scope, key, doc, doc_hash, first_seen_at, changed_at)
            SELECT $1, s::text, 'd', '{}', 'h', now(), now() FROM unnest($2::bigint[]) AS s`, [store, scopes])
        }
        const retired = await runtime.runPromise(Effect.flatMap(retire, (p) => p.retireOrphans("store.customer_downloads")))
        const orphans = scopes.filter((s) => !live.includes(String(s)))
        expect(retired).toBe(orphans.length)
        const gone = await sqlRows<{ scope: string; store_id: string }>(db.url, "SELECT store_id, scope FROM store.customer_downloads WHERE deleted_at IS NOT NULL")
        expect(gone.map((g) => g.store_id).every((s) => s === STORE)).toBe(true)
        expect(gone.map((g) => g.scope).sort(byKey)).toEqual(orphans.map(String).sort(byKey))
      }
    }), { numRuns: 25 })
  })
})
