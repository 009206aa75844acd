import { Effect, Layer, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { StoreClient } from "../../src/store-client/client.js"
import { listAll } from "../../src/sync/reconcile/listing.js"

/**
 * A store of `ids` listed by offset in id order, pages of `perPage`, one page at a time; `onRequest` may change
 * the rows before the n-th request (1-based) is answered.
 */
const fakeStore = (ids: number[], perPage: number, onRequest: (n: number, rows: number[]) => void = () => {}) => {
  let n = 0
  const rows = [...ids]
  const client = StoreClient.of({
    storeId: "t", perPage, settleSeconds: 0, concurrency: 1,
    list: (_path, params, schema) =>
      Effect.sync(() => {
        onRequest(++n, rows)
        const offset = Number(params["offset"] ?? 0)
        const items = rows.slice(offset, offset + perPage).map((id) => Schema.decodeUnknownSync(schema)({ id, date_modified_gmt: "2026-01-01T00:00:00" }))
        return { items, total: rows.length, totalPages: Math.ceil(rows.length / perPage), serverTime: undefined, json: "" }
      }),
    get: () => Effect.die("not used"),
    send: () => Effect.die("not used"),
    requestCount: Effect.sync(() => n),
    logPace: () => Effect.void
  })
  return { layer: Layer.succeed(StoreClient, client), requests: () => n }
}

const list = (store: ReturnType<typeof fakeStore>) =>
  Effect.runPromise(listAll({ path: "/orders", params: {}, stamp: "date_modified_gmt", trash: false }).pipe(Effect.provide(store.layer)))
    .then((rows) => [...rows.keys()].sort((a, b) => a - b))

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
})
