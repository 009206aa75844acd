import { Schema } from "effect"
import { sqlText } from "./sql-files.js"

/**
 * The catalogue of what consumers read (`sql/models/catalogue.json`): each view's comment and columns, a column
 * shared by several views (store_id, day, gross_sales …) described once under `columns`, one of a view's own as
 * `[name, comment]`. The warehouse's comments and the analyst tables (docs/analytics-columns.md) both come from it.
 */
const Column = Schema.Union(Schema.String, Schema.Tuple(Schema.String, Schema.String))
const Catalogue = Schema.Struct({
  columns: Schema.Record({ key: Schema.String, value: Schema.String }),
  views: Schema.Record({ key: Schema.String, value: Schema.Struct({ comment: Schema.String, columns: Schema.Array(Column) }) })
})

export interface Described {
  readonly view: string
  readonly comment: string
  readonly columns: ReadonlyArray<readonly [string, string]>
}

/** Every catalogued view with its columns' comments, in the file's order; a shared name not described fails. */
export const catalogue = (): ReadonlyArray<Described> => {
  const c = Schema.decodeUnknownSync(Catalogue)(JSON.parse(sqlText("models/catalogue.json")))
  return Object.entries(c.views).map(([view, v]) => ({
    view,
    comment: v.comment,
    columns: v.columns.map((col) => {
      if (typeof col !== "string") return col
      const text = c.columns[col]
      if (text === undefined) throw new Error(`sql/models/catalogue.json: ${view}.${col} names no entry of "columns"`)
      return [col, text] as const
    })
  }))
}

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`

/** The COMMENT statements, one script: migrate runs it after (re-)creating the models, which drops views' comments. */
export const catalogueComments = (): string =>
  catalogue().flatMap((d) => [
    `COMMENT ON VIEW ${d.view} IS ${literal(d.comment)};`,
    ...d.columns.map(([name, text]) => `COMMENT ON COLUMN ${d.view}.${name} IS ${literal(text)};`)
  ]).join("\n")

/** The analyst tables in markdown, in the shape README.md's "What consumers query" uses. */
export const analystTables = (): string =>
  [
    "# What consumers query: the columns",
    "",
    "Generated from sql/models/catalogue.json by `npx tsx src/warehouse/catalogue.ts` (test/e2e/catalogue.test.ts",
    "fails when this file or the warehouse's comments differ from it). `\\d+ <view>` in psql shows the same text.",
    "",
    ...catalogue().flatMap((d) => [
      `\`${d.view}\`: ${d.comment}`,
      "",
      "| column | meaning |",
      "| --- | --- |",
      ...d.columns.map(([name, text]) => `| \`${name}\` | ${text} |`),
      ""
    ])
  ].join("\n")

// Run directly, it writes docs/analytics-columns.md.
if (import.meta.url === `file://${process.argv[1]}`) {
  const fs = await import("node:fs")
  fs.mkdirSync("docs", { recursive: true })
  fs.writeFileSync("docs/analytics-columns.md", analystTables())
}
