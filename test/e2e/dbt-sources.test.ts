// docs/dbt/sources.yml is what `shopsync dbt-sources` prints from the warehouse's comments: the committed copy
// cannot drift from the schema, and the command works against a warehouse of its own.
import { Effect, Redacted } from "effect"
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgLayer } from "../../src/warehouse/database.js"
import { dbtSources } from "../../src/warehouse/dbt-sources.js"
import { migrate } from "../../src/warehouse/migrate.js"
import { runCli } from "../support/cli.js"
import { freshDatabase, sqlRows } from "../support/database.js"

const COPY = "docs/dbt/sources.yml"
const REGENERATE = "regenerate: SHOPSYNC_DATA_DIR=$(mktemp -d) npm run -s shopsync -- dbt-sources > docs/dbt/sources.yml"

describe("shopsync dbt-sources", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    db = await freshDatabase()
  })
  afterAll(() => db.drop())

  it(`prints a fresh warehouse's sources.yml, which is ${COPY} (${REGENERATE})`, async () => {
    const run = await runCli(["dbt-sources"], { DATABASE_URL: db.url })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe(fs.readFileSync(COPY, "utf8"))
  })

  it("describes every table and view of analytics and store, each column with its comment, and freshness on analytics.freshness", async () => {
    const yaml = await Effect.runPromise(Effect.andThen(migrate, dbtSources).pipe(Effect.provide(pgLayer(Redacted.make(db.url)))))
    const relations = await sqlRows<{ schema: string; name: string; columns: number }>(db.url,
      `SELECT n.nspname AS schema, c.relname AS name,
              (SELECT count(*)::int FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname IN ('analytics', 'store') AND c.relkind IN ('r', 'v') ORDER BY 1, 2`)
    // Each source, then its tables by name, each with a description and its columns.
    const sources = yaml.split(/^ {2}- name: /m).slice(1)
    expect(sources.map((s) => s.split("\n")[0])).toEqual(["analytics", "store"])
    const listed = sources.flatMap((s) => s.split(/^ {6}- name: /m).slice(1).map((t) => ({
      schema: s.split("\n")[0]!,
      name: t.split("\n")[0]!,
      described: /^ {8}description: "/m.test(t),
      columns: (t.match(/^ {10}- name: /gm) ?? []).length,
      commented: (t.match(/^ {12}description: "/gm) ?? []).length
    })))
    expect(listed).toEqual(relations.map((r) => ({ ...r, described: true, commented: r.columns })))
    const freshness = sources[0]!.split(/^ {6}- name: /m).find((t) => t.startsWith("freshness\n"))!
    expect(freshness).toMatch(/^ {8}loaded_at_field: last_success_at\n {8}freshness:\n {10}warn_after: \{count: 12, period: hour\}\n {10}error_after: \{count: 24, period: hour\}\n/m)
    expect(yaml.match(/loaded_at_field/g)).toHaveLength(1)
  })
})
