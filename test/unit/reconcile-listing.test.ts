import { Effect, Layer, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { StoreClient } from "../../src/store-client/client.js"
import { listAll, type ListingWindow, listWindows, WindowPages } from "../../src/sync/reconcile/listing.js"

/**
 * A store of `ids` listed by offset in id order, pages of `perPage`, one page at a time; `onRequest` may change
 * the rows before the n-th request (1-based) is answered.
 */
const fakeStore = (ids: number[], perPage: number, onRequest: (n: number, rows: number[]) => void = () => {}, order: "asc" | "desc" = "asc") => {
  let n = 0
  const rows = [...ids]
  const client = StoreClient.of({
    storeId: "t", perPage, settleSeconds: 0, concurrency: 1,
    list: (_path, params, schema) =>
      Effect.sync(() => {
        onRequest(++n, rows)
        const offset = Number(params["offset"] ?? 0)
        const items = (order === "asc" ? rows : [...rows].reverse()).slice(offset, offset + perPage).map((id) => Schema.decodeUnknownSync(schema)({ id, date_modified_gmt: "2026-01-01T00:00:00" }))
        return { items, total: rows.length, totalPages: Math.ceil(rows.length / perPage), serverTime: undefined, json: "" }
      }),
    get: () => Effect.die("not used"),
    send: () => Effect.die("not used"),
    requestCount: Effect.sync(() => n),
    logPace: () => Effect.void
  })
  return { layer: Layer.succeed(StoreClient, client), requests: () => n }
}

const SPEC = { path: "/orders", params: {}, stamp: "date_modified_gmt", trash: false } as const

const list = (store: ReturnType<typeof fakeStore>) =>
  Effect.runPromise(listAll(SPEC).pipe(Effect.provide(store.layer))).then((rows) => [...rows.keys()])

/** The windows a listing hands on, as ranges and ids. */
const windows = (store: ReturnType<typeof fakeStore>, windowPages: number) => {
  const seen: Array<{ after: number; through: number; ids: number[] }> = []
  const visit = (w: ListingWindow) => Effect.sync(() => void seen.push({ after: w.after, through: w.through, ids: [...w.rows.keys()] }))
  return Effect.runPromise(listWindows(SPEC, visit).pipe(Effect.provideService(WindowPages, windowPages), Effect.provide(store.layer))).then(() => seen)
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe("listing every id by offset pages that overlap by one row", () => {
  it("reads every row in the pages planned from the first page's total", async () => {
    const store = fakeStore(range(1, 95), 10)
    expect(await list(store)).toEqual(range(1, 95))
    // 10 rows, then 9 new rows a page: 1 + ceil(85 / 9).
    expect(store.requests()).toBe(11)
  })

  it("a row removed before the seam while the pages are read skips nothing: the seam is read again from further back", async () => {
    // Rows 3 and 4 vanish after the first pages were read: every later page starts two rows late.
    const store = fakeStore(range(1, 60), 10, (n, rows) => {
      if (n === 3) rows.splice(2, 2)
    })
    const seen = await list(store)
    expect(range(5, 60).filter((id) => !seen.includes(id))).toEqual([])
  })

  it("rows added at the end while reading are read on from the last page", async () => {
    const store = fakeStore(range(1, 30), 10, (n, rows) => {
      if (n === 2) rows.push(...range(31, 45))
    })
    expect(await list(store)).toEqual(range(1, 45))
  })

  it("hands the rows on a window of pages at a time, the windows partitioning the ids", async () => {
    const store = fakeStore(range(1, 95), 10)
    const seen = await windows(store, 3)
    // Pages 2–4, 5–7, 8–10 and 11 (the first page joins the first window).
    expect(seen.map((w) => [w.after, w.through])).toEqual([[-Infinity, 37], [37, 64], [64, 91], [91, Infinity]])
    expect(seen.map((w) => w.ids)).toEqual([range(1, 37), range(38, 64), range(65, 91), range(92, 95)])
    expect(store.requests()).toBe(11)
  })

  it("skips no row that exists throughout, whatever leaves or joins while the windows are read", async () => {
    // Rows removed anywhere (two at once shift a seam past the row pages overlap by), new ids added at the end, before any request.
    const change = fc.record({ request: fc.integer({ min: 1, max: 30 }), at: fc.nat(), remove: fc.integer({ min: 0, max: 3 }), add: fc.integer({ min: 0, max: 12 }) })
    await fc.assert(fc.asyncProperty(
      fc.uniqueArray(fc.integer({ min: 1, max: 400 }), { maxLength: 150 }).map((ids) => ids.sort((a, b) => a - b)),
      fc.integer({ min: 3, max: 12 }),
      fc.integer({ min: 1, max: 4 }),
      fc.array(change, { maxLength: 4 }),
      async (ids, perPage, windowPages, changes) => {
        const removed = new Set<number>()
        const existed = new Set(ids)
        const store = fakeStore(ids, perPage, (n, rows) => {
          for (const c of changes.filter((c) => c.request === n)) {
            for (const id of rows.splice(c.at % Math.max(1, rows.length), c.remove)) removed.add(id)
            const top = Math.max(400, ...rows)
            rows.push(...range(top + 1, top + c.add))
            for (const id of range(top + 1, top + c.add)) existed.add(id)
          }
        })
        const seen = await windows(store, windowPages)
        expect(seen[0]!.after).toBe(-Infinity)
        expect(seen.at(-1)!.through).toBe(Infinity)
        for (const [i, w] of seen.entries()) {
          if (i > 0) expect(w.after).toBe(seen[i - 1]!.through)
          expect(w.ids.every((id) => id > w.after && id <= w.through)).toBe(true)
        }
        const listed = seen.flatMap((w) => w.ids)
        expect(listed.filter((id) => !existed.has(id))).toEqual([])
        expect(ids.filter((id) => !removed.has(id) && !listed.includes(id))).toEqual([])
      }
    ), { numRuns: 300 })
  })

  it("fails, naming the listing and the ids, when the store does not list in id order", async () => {
    const store = fakeStore(range(1, 30), 10, () => {}, "desc")
    await expect(windows(store, 2)).rejects.toThrow(/from \/orders: a listing asked in id order \(orderby=id\) came with id 29 after 30/)
  })
})
