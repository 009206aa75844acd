// The warehouse's connections keep their parametrized statements prepared (src/warehouse/prepared-client.ts): each
// text is parsed once per connection, its values never become part of a name or a text, the statements a connection
// keeps stay bounded, and a statement whose table changed shape (a migration, from another connection) runs again.
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_NAMED, PreparedClient } from "../../src/warehouse/prepared-client.js"
import { freshDatabase } from "../support/database.js"

describe("prepared statements per connection", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let client: PreparedClient
  beforeAll(async () => {
    db = await freshDatabase()
    client = new PreparedClient(db.url)
    await client.connect()
  }, 60_000)
  afterAll(async () => {
    await client?.end()
    await db?.drop()
  })

  const prepared = async () =>
    (await client.query("SELECT name, statement FROM pg_prepared_statements ORDER BY prepare_time")).rows as Array<{ name: string; statement: string }>

  it("prepares a text once, whatever values it runs with, and keeps values out of it", async () => {
    const text = "SELECT $1::text AS v, length($1::text) AS n"
    await fc.assert(fc.asyncProperty(fc.string({ unit: "binary" }).filter((s) => !s.includes("\u0000")), async (value) => {
      const { rows } = await client.query(text, [value])
      expect(rows).toEqual([{ v: value, n: [...value].length }])
    }), { numRuns: 200 })
    const mine = (await prepared()).filter((p) => p.statement === text)
    expect(mine).toHaveLength(1)
    expect(mine[0]!.name).toMatch(/^shopsync_[0-9a-f]{40}$/)
  })

  it("runs texts without values, several statements in one, as before", async () => {
    const before = (await prepared()).length
    const results = await client.query("SELECT 1 AS a; SELECT 2 AS b") as unknown as Array<{ rows: unknown[] }>
    expect(results.map((r) => r.rows)).toEqual([[{ a: 1 }], [{ b: 2 }]])
    expect((await prepared()).length).toBe(before)
  })

  it("keeps at most MAX_NAMED statements on a connection; the texts past them still run", async () => {
    for (let i = 0; i < MAX_NAMED + 20; i++) {
      const { rows } = await client.query(`SELECT $1::int + ${i} AS x`, [1])
      expect(rows).toEqual([{ x: i + 1 }])
    }
    expect((await prepared()).length).toBe(MAX_NAMED)
  })

  it("runs a statement again after its table changed shape: at once on its own, from its next run in a transaction", async () => {
    const fresh = new PreparedClient(db.url)
    await fresh.connect()
    const other = new PreparedClient(db.url)
    await other.connect()
    try {
      await fresh.query("CREATE TABLE shape_t (id int, a text); INSERT INTO shape_t VALUES (1, 'x')")
      const text = "SELECT * FROM shape_t WHERE id = $1"
      expect((await fresh.query(text, [1])).rows).toEqual([{ id: 1, a: "x" }])
      await other.query("ALTER TABLE shape_t ADD COLUMN b text")
      expect((await fresh.query(text, [1])).rows).toEqual([{ id: 1, a: "x", b: null }])

      await other.query("ALTER TABLE shape_t ADD COLUMN c text")
      await fresh.query("BEGIN")
      await expect(fresh.query(text, [1])).rejects.toThrow(/cached plan must not change result type/)
      await fresh.query("ROLLBACK")
      await fresh.query("BEGIN")
      expect((await fresh.query(text, [1])).rows).toEqual([{ id: 1, a: "x", b: null, c: null }])
      await fresh.query("COMMIT")
    } finally {
      await fresh.end()
      await other.end()
    }
  })
})
