// A staged page's documents stay in their rows up to a page's size: the merge's statements read each document
// several times (the order's columns, each kind of line), and one stored out of line is fetched again from the
// TOAST table every time. Only a document too big for a page goes there, and it loads the same.
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Loader } from "../../src/warehouse/loader.js"
import { type Harness, makeHarness, STORE_ID } from "../support/harness.js"

describe("a staged page", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ data: { seed: 41, orders: 60, start: "2026-03-01", days: 10 } })
    await h.sync()
  })
  afterAll(() => h.close())

  /** Loads `docs` as one page and reads, before its transaction commits, how much the staging table's TOAST holds. */
  const stagedOutOfLine = (docs: ReadonlyArray<Record<string, unknown>>) =>
    h.run(Effect.flatMap(Effect.all([SqlClient.SqlClient, Loader]), ([sql, loader]) =>
      sql.withTransaction(Effect.zipRight(
        loader.load({ kind: "orders", docs }),
        sql<{ bytes: string }>`SELECT pg_relation_size(reltoastrelid)::text AS bytes FROM pg_class WHERE oid = 'pg_temp.sync_batch'::regclass`
      ))).pipe(Effect.map((rows) => Number(rows[0]!.bytes))))

  it("keeps documents of a few KB in its rows, and sends a bigger one out of line, loaded all the same", async () => {
    const held = await h.rows<{ doc: Record<string, unknown> & { id: number } }>(
      "SELECT doc FROM store.orders WHERE store_id = $1 ORDER BY id LIMIT 50", [STORE_ID])
    const sizes = held.map((r) => JSON.stringify(r.doc).length)
    expect(Math.min(...sizes)).toBeGreaterThan(2_100) // past PostgreSQL's 2 KB threshold: out of line by default
    const edited = held.map((r) => ({ ...r.doc, customer_note: "staged again" }))
    expect(await stagedOutOfLine(edited)).toBe(0)

    const big = { ...held[0]!.doc, customer_note: "x".repeat(12_000) }
    expect(await stagedOutOfLine([big])).toBeGreaterThan(0)
    const notes = await h.rows<{ id: number; n: number }>(
      "SELECT id::int, length(doc->>'customer_note') AS n FROM store.orders WHERE store_id = $1 AND id = ANY($2::bigint[]) ORDER BY id",
      [STORE_ID, [held[0]!.doc.id, held[1]!.doc.id]])
    expect(notes).toEqual([{ id: held[0]!.doc.id, n: 12_000 }, { id: held[1]!.doc.id, n: "staged again".length }])
  })
})
