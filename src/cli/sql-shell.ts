import * as readline from "node:readline"
import pg from "pg"
import { formatTable } from "../jobs/table.js"

/** Every value as the server writes it (a date stays a date, numeric keeps its digits). */
const asText = { getTypeParser: () => (value: string) => value } as unknown as typeof pg.types

const HELP = `statements end with ';' at the end of a line; \\d lists shopsync's tables and views, \\d NAME describes one
(with its comments), \\q quits`

const LIST = `SELECT n.nspname AS schema, c.relname AS name,
  CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' ELSE 'table' END AS type,
  coalesce(obj_description(c.oid, 'pg_class'), '') AS comment
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm') AND n.nspname IN ('store', 'sync', 'marketing', 'analytics')
  AND has_table_privilege(c.oid, 'SELECT')
ORDER BY 1, 2`

const DESCRIBE = `SELECT a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
  coalesce(col_description(a.attrelid, a.attnum), '') AS comment
FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`

const print = (result: pg.QueryResult) => {
  if (result.fields.length === 0) {
    process.stdout.write(`${result.command}${result.rowCount === null ? "" : ` ${result.rowCount}`}\n`)
    return
  }
  const rows = result.rows as Array<Record<string, unknown>>
  process.stdout.write(`${formatTable(rows, result.fields.map((f) => f.name))}\n(${rows.length} row${rows.length === 1 ? "" : "s"})\n\n`)
}

/** One input: a backslash command or statements; errors are printed and the shell goes on, as psql does. */
const run = async (client: pg.Client, text: string) => {
  const command = text.trim()
  try {
    if (command === "\\?") process.stdout.write(`${HELP}\n`)
    else if (command === "\\d") print(await client.query(LIST))
    else if (command.startsWith("\\d ")) print(await client.query(DESCRIBE, [command.slice(3).trim()]))
    else if (command.startsWith("\\")) process.stdout.write(`unknown command ${command.split(/\s/)[0]}: \\? lists them\n`)
    else for (const result of ([] as Array<pg.QueryResult>).concat(await client.query(text) as never)) print(result)
  } catch (e) {
    process.stdout.write(`ERROR: ${e instanceof Error ? e.message : String(e)}\n`)
  }
}

/**
 * A small interactive SQL shell over node-postgres, for when no `psql` is installed (the embedded server ships
 * none; a distribution's may be older than the server). Reads lines until one ends with `;` (so a statement may
 * span lines), runs them, prints each result as a table. Piped input works the same, without prompts.
 */
export const sqlShell = async (url: string) => {
  const client = new pg.Client({ connectionString: url, types: asText, application_name: "shopsync-shell" })
  await client.connect()
  const tty = process.stdin.isTTY === true
  const rl = readline.createInterface({ input: process.stdin, output: tty ? process.stdout : undefined, terminal: tty })
  const database = client.database ?? ""
  if (tty) process.stdout.write(`shopsync SQL shell on ${database} (\\? for help)\n`)
  let buffer = ""
  const prompt = () => {
    if (!tty) return
    rl.setPrompt(buffer === "" ? `${database}=> ` : `${database}-> `)
    rl.prompt()
  }
  prompt()
  try {
    for await (const line of rl) {
      if (buffer === "" && line.trim() === "\\q") break
      if (buffer === "" && line.trim().startsWith("\\")) await run(client, line)
      else {
        buffer += `${line}\n`
        if (line.trimEnd().endsWith(";")) {
          await run(client, buffer)
          buffer = ""
        }
      }
      prompt()
    }
    if (buffer.trim() !== "") await run(client, buffer)
  } finally {
    rl.close()
    await client.end()
  }
}
