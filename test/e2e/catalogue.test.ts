// The catalogue (sql/models/catalogue.json) is the one place a consumer-facing column is described: the warehouse's
// comments and docs/analytics-columns.md both come from it, and no model file restates them.
import { Effect, Redacted } from "effect"
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { analystTables, catalogue } from "../../src/warehouse/catalogue.js"
import { pgLayer } from "../../src/warehouse/database.js"
import { migrate, models } from "../../src/warehouse/migrate.js"
import { freshDatabase, sqlRows } from "../support/database.js"

describe("the catalogue of what consumers read", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    db = await freshDatabase()
    await Effect.runPromise(migrate.pipe(Effect.provide(pgLayer(Redacted.make(db.url)))))
  })
  afterAll(() => db.drop())

  it("is what the warehouse's comments say, every column of each view in order", async () => {
    for (const d of catalogue()) {
      const [described] = await sqlRows<{ comment: string }>(db.url, "SELECT obj_description($1::regclass, 'pg_class') AS comment", [d.view])
      const columns = await sqlRows<{ name: string; comment: string }>(db.url,
        `SELECT attname AS name, col_description(attrelid, attnum) AS comment FROM pg_attribute
         WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, [d.view])
      expect({ view: d.view, comment: described!.comment, columns: columns.map((c) => [c.name, c.comment]) })
        .toEqual({ view: d.view, comment: d.comment, columns: d.columns })
    }
  })

  it("renders docs/analytics-columns.md (regenerate: npx tsx src/warehouse/catalogue.ts)", () => {
    expect(fs.readFileSync("docs/analytics-columns.md", "utf8")).toBe(analystTables())
  })

  it("is the only place their comments are written: no model restates them", () => {
    const catalogued = catalogue().map((d) => d.view)
    for (const m of models()) {
      for (const view of catalogued) expect(m.text, m.name).not.toContain(`COMMENT ON COLUMN ${view}.`)
    }
  })
})
