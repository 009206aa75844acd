import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, FastCheck as fc, Layer, Schema, Stream } from "effect"
import { StoreClient } from "../../src/store-client/client.js"
import { wholeSecond } from "../../src/sync/cursor.js"
import { fromApiGmt, toApiGmt } from "../../src/sync/time.js"
import { walkPages, type WalkPage } from "../../src/sync/walk.js"

/**
 * The walk against a store that orders rows of one second as badly as it may: MariaDB under WooCommerce sorts
 * by the date alone, so each request gets the ties of every second in an order of its own. Rows are few and
 * share few seconds, and pages are small, so ties straddle page boundaries in every way.
 */
interface Row {
  readonly id: number
  readonly at: number
}

const BASE = 1_780_000_000

/**
 * A list endpoint over `rows`, its ties shuffled per request by `shuffle` (one permutation key per request), leaving
 * out the ids of `exclude` as WooCommerce does; each request's parameters are pushed onto `log`.
 */
const unkindStore = (rows: ReadonlyArray<Row>, perPage: number, keys: ReadonlyArray<number>, log: Array<Record<string, unknown>> = []) => {
  let request = 0
  const list = (_path: string, params: Record<string, unknown>) =>
    Effect.sync(() => {
      log.push(params)
      const key = keys[request++ % keys.length]!
      const excluded = new Set(String(params["exclude"] ?? "").split(",").filter((id) => id !== "").map(Number))
      const after = params["modified_after"] === undefined ? -Infinity : fromApiGmt(String(params["modified_after"]))
      const before = fromApiGmt(String(params["modified_before"]))
      // A per-request order of ties: the rows' ids hashed with this request's key.
      const rank = (r: Row) => Math.imul(r.id ^ key, 0x9e3779b1) >>> 0
      const byId = params["orderby"] === "id"
      const matching = rows.filter((r) => r.at > after && r.at < before && !excluded.has(r.id))
        .sort((a, b) => (byId ? a.id - b.id : a.at - b.at || rank(a) - rank(b)))
      const page = Number(params["page"] ?? 1)
      const items = matching.slice((page - 1) * perPage, page * perPage).map((r) => ({ id: r.id, date_modified_gmt: toApiGmt(r.at) }))
      return { items, total: matching.length, totalPages: Math.ceil(matching.length / perPage), serverTime: undefined, json: JSON.stringify(items) }
    })
  return Layer.succeed(StoreClient, StoreClient.of({ perPage, list } as unknown as StoreClient["Type"]))
}

const walkAll = (rows: ReadonlyArray<Row>, perPage: number, keys: ReadonlyArray<number>, log?: Array<Record<string, unknown>>) =>
  walkPages(
    { path: "/orders", params: {}, field: "modified", kind: "orders", schema: Schema.Struct({ id: Schema.Number }) },
    { lower: null, upper: BASE + 100 }
  ).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray), Effect.provide(unkindStore(rows, perPage, keys, log)))

/** Rows with distinct ids in a few crowded seconds. */
const rowsArb = fc.uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 500 }), at: fc.integer({ min: BASE, max: BASE + 6 }) }), {
  selector: (r) => r.id,
  maxLength: 60
})

/** Whether every page's cursor claims only rows loaded by the pages up to it. */
const claimsOnlyLoaded = (rows: ReadonlyArray<Row>, pages: ReadonlyArray<WalkPage>) => {
  const loaded = new Set<number>()
  return pages.every((page) => {
    for (const doc of page.docs) loaded.add(doc.id)
    const whole = wholeSecond(page.cursor) ?? -Infinity
    return rows.every((r) => r.at > whole || loaded.has(r.id))
  })
}

describe("the walk, whatever order the store gives ties in", () => {
  it.effect("loads every row exactly once, and no cursor ever claims a row not loaded", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(rowsArb, fc.integer({ min: 1, max: 5 }), fc.array(fc.integer(), { minLength: 1, maxLength: 8 }), async (rows, perPage, keys) => {
          const pages = await Effect.runPromise(walkAll(rows, perPage, keys))
          const ids = pages.flatMap((p) => p.docs.map((d) => d.id))
          expect([...ids].sort((a, b) => a - b)).toEqual(rows.map((r) => r.id).sort((a, b) => a - b))
          expect(claimsOnlyLoaded(rows, pages)).toBe(true)
        }),
        { numRuns: 400 }
      )
    ))

  it.effect("a bulk edit of 250 rows in one second, read 100 a page, ties reversed from one request to the next", () =>
    Effect.gen(function*() {
      const rows = [
        ...Array.from({ length: 30 }, (_, i) => ({ id: 1000 + i, at: BASE + 1 })),
        ...Array.from({ length: 250 }, (_, i) => ({ id: 1 + i, at: BASE + 2 })),
        ...Array.from({ length: 30 }, (_, i) => ({ id: 2000 + i, at: BASE + 3 }))
      ]
      const pages = yield* walkAll(rows, 100, [1, 2, 3])
      const ids = pages.flatMap((p) => p.docs.map((d) => d.id))
      expect(new Set(ids).size).toBe(rows.length)
      expect(ids).toHaveLength(rows.length)
      expect(claimsOnlyLoaded(rows, pages)).toBe(true)
    }))

  it.effect("a crowded second is read by id leaving out the rows already loaded: one request for the rest", () =>
    Effect.gen(function*() {
      const rows = [
        ...Array.from({ length: 30 }, (_, i) => ({ id: 1000 + i, at: BASE + 1 })),
        ...Array.from({ length: 150 }, (_, i) => ({ id: 1 + i, at: BASE + 2 }))
      ]
      const log: Array<Record<string, unknown>> = []
      const pages = yield* walkAll(rows, 100, [5, 6], log)
      const ids = pages.flatMap((p) => p.docs.map((d) => d.id))
      expect([...ids].sort((a, b) => a - b)).toEqual(rows.map((r) => r.id).sort((a, b) => a - b))
      // The page ending inside the second, the page full of it, its rows not loaded yet by id, the (empty) range after.
      expect(log.map((p) => p["orderby"])).toEqual(["modified", "modified", "id", "modified"])
      // Over a page of rows left out: those of the first two pages.
      expect(String(log[2]!["exclude"]).split(",").length).toBeGreaterThan(100)
      expect(claimsOnlyLoaded(rows, pages)).toBe(true)
    }))
})
