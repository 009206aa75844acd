import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import { sqlFolder, sqlText } from "./sql-files.js"

/**
 * The models' declared tests, as dbt reads them: each is a query returning the rows that break it (none: it passes).
 *  - generic tests in `sql/models/tests/generic.json`, per model: unique (column sets), not_null, accepted_values,
 *    relationships (a key found in another model) and expressions (a condition every row meets);
 *  - singular tests, one query per file in `sql/models/tests/*.sql`, named after the file.
 */
export interface ModelTest {
  readonly name: string
  readonly query: string
}

const Relationship = Schema.Struct({
  columns: Schema.NonEmptyArray(Schema.String),
  to: Schema.String,
  fields: Schema.NonEmptyArray(Schema.String)
})
const Declared = Schema.Record({
  key: Schema.String,
  value: Schema.Struct({
    unique: Schema.optional(Schema.Array(Schema.NonEmptyArray(Schema.String))),
    not_null: Schema.optional(Schema.Array(Schema.String)),
    accepted_values: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.NonEmptyArray(Schema.String) })),
    relationships: Schema.optional(Schema.Array(Relationship)),
    expressions: Schema.optional(Schema.Array(Schema.String))
  })
})

const ident = (name: string) => `"${name.replace(/"/g, "\"\"")}"`
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`
// Model names come from our own file (schema.object); columns are quoted as identifiers.
const list = (columns: ReadonlyArray<string>) => columns.map(ident).join(", ")

/** The generic tests of one model, compiled to queries. */
const generic = (model: string, declared: typeof Declared.Type[string]): Array<ModelTest> => [
  ...(declared.unique ?? []).map((columns) => ({
    name: `${model}: unique (${columns.join(", ")})`,
    query: `SELECT ${list(columns)}, count(*) AS copies FROM ${model} GROUP BY ${list(columns)} HAVING count(*) > 1`
  })),
  ...(declared.not_null ?? []).map((column) => ({
    name: `${model}: not_null ${column}`,
    query: `SELECT * FROM ${model} WHERE ${ident(column)} IS NULL`
  })),
  ...Object.entries(declared.accepted_values ?? {}).map(([column, values]) => ({
    name: `${model}: accepted_values ${column}`,
    query: `SELECT ${ident(column)}, count(*) AS rows FROM ${model}
            WHERE ${ident(column)}::text NOT IN (${values.map(literal).join(", ")}) GROUP BY ${ident(column)}`
  })),
  ...(declared.relationships ?? []).map((r) => ({
    name: `${model}: relationships (${r.columns.join(", ")}) -> ${r.to} (${r.fields.join(", ")})`,
    query: `SELECT DISTINCT ${r.columns.map((c) => `c.${ident(c)}`).join(", ")} FROM ${model} c
            WHERE NOT EXISTS (SELECT 1 FROM ${r.to} p WHERE ${r.fields.map((f, i) => `p.${ident(f)} = c.${ident(r.columns[i]!)}`).join(" AND ")})`
  })),
  // IS NOT TRUE: a row whose condition is NULL fails too.
  ...(declared.expressions ?? []).map((expression) => ({
    name: `${model}: ${expression}`,
    query: `SELECT * FROM ${model} WHERE (${expression}) IS NOT TRUE`
  }))
]

/** Every declared test: the generic ones in the file's order, then the singular ones by file name. */
export const modelTests = (): ReadonlyArray<ModelTest> => {
  const declared = Schema.decodeUnknownSync(Declared)(JSON.parse(sqlText("models/tests/generic.json")))
  return [
    ...Object.entries(declared).flatMap(([model, d]) => generic(model, d)),
    ...sqlFolder("models/tests").map((f) => ({ name: f.name, query: f.text }))
  ]
}

/** A test that found rows: its name, how many, and the first few (as JSON) to say which. */
export interface ModelTestFailure {
  readonly name: string
  readonly count: number
  readonly sample: ReadonlyArray<string>
}

const SAMPLE = 5

/** Runs the tests against the warehouse, read-only; the failures, in the tests' order (none: all pass). */
export const runModelTests = (tests: ReadonlyArray<ModelTest> = modelTests()) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const failures: Array<ModelTestFailure> = []
  for (const test of tests) {
    const [found] = yield* sql.unsafe<{ count: number; sample: Array<string> | null }>(
      `SELECT count(*)::integer AS count, (array_agg(to_jsonb(t)::text))[1:${SAMPLE}] AS sample FROM (${test.query}
) t`
    )
    if (found !== undefined && found.count > 0) failures.push({ name: test.name, count: found.count, sample: found.sample ?? [] })
  }
  return failures
})

/** A failure as a reader wants it: the test, how many rows, and the rows. */
export const describeFailure = (f: ModelTestFailure): string =>
  `${f.name}: ${f.count} row${f.count === 1 ? "" : "s"}\n${f.sample.map((row) => `  ${row}`).join("\n")}`
