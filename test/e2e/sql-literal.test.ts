// A page's JSON and the store's id go into the load script as literals (a script of several statements takes no
// parameters): whatever they hold, PostgreSQL must read back exactly that text, and nothing of it as SQL.
import fc from "fast-check"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { literal } from "../../src/warehouse/literal.js"
import { freshDatabase } from "../support/database.js"

/** Text that ends a dollar quote, or a plain one, or a comment, as an attacker would write it. */
const hostile = fc.constantFrom("$q$", "$q0$", "$q$q$", "$$", "$", "'", "''", "\\", "--", "/*", "*/", ";", "$q1$'); DROP TABLE t; --", "\u2028", "\uFFFF", "😀")
const text = fc.array(fc.oneof(fc.string({ unit: "binary" }), hostile), { maxLength: 8 })
  .map((parts) => parts.join("").replace(/\u0000/g, ""))

describe("literal(): text as an SQL literal", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  let client: pg.Client
  beforeAll(async () => {
    db = await freshDatabase()
    client = new pg.Client({ connectionString: db.url })
    await client.connect()
    await client.query("CREATE TABLE t (v text)")
  })
  afterAll(async () => {
    await client?.end()
    await db?.drop()
  })

  it("reads back as the text itself, in a script of several statements, whatever it holds", async () => {
    await fc.assert(fc.asyncProperty(text, async (s) => {
      // The simple protocol (no parameters), as the load script runs: a quote closed early would run what follows.
      const results = await client.query(`SELECT ${literal(s)} AS v; SELECT count(*)::int AS n FROM t`) as unknown as ReadonlyArray<pg.QueryResult>
      expect(results[0]!.rows[0].v).toBe(s)
      expect(results[1]!.rows[0].n).toBe(0)
    }), { numRuns: 300 })
    expect((await client.query("SELECT to_regclass('t') IS NOT NULL AS present")).rows[0].present).toBe(true)
  })

  // The loader stages a page's JSON text as a literal without looking for a NUL character, which would end the
  // script's text: JSON writes one as the escape \u0000, and a raw one is not JSON (the answer would not have parsed).
  it("a JSON text never holds a NUL character: written by JSON.stringify, or accepted by JSON.parse", () => {
    const withNul = fc.string({ unit: "binary" }).map((s) => `${s}\u0000${s}`)
    fc.assert(fc.property(fc.jsonValue({ stringUnit: "binary" }), withNul, (value, nul) => {
      expect(JSON.stringify([value, nul, { [nul]: nul }]).includes("\u0000")).toBe(false)
      expect(() => JSON.parse(`[${JSON.stringify(value)}, "${nul.replace(/[\u0001-\u001f"\\]/g, "")}"]`)).toThrow(SyntaxError)
    }), { numRuns: 300 })
  })
})
