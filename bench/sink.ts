/**
 * Sink limit: the normalized rows of a pipeline run (dumped as COPY text files, one per store table) loaded
 * into the same, empty tables with `COPY … FROM STDIN` over `concurrency` connections, each table cut into
 * that many parts at row boundaries. Prints {"rows", "seconds"} as JSON.
 *
 *   node sink.js <DATABASE_URL> <dump dir> <concurrency>
 */
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { copyFromFile, splitLines } from "./copy.js"

const [url, dir, concurrencyArg] = process.argv.slice(2)
if (!url || !dir || !concurrencyArg) throw new Error("usage: sink.js <DATABASE_URL> <dump dir> <concurrency>")
const concurrency = Number(concurrencyArg)
const tables = JSON.parse(fs.readFileSync(path.join(dir, "tables.json"), "utf8")) as Array<{ table: string; columns: string; rows: number }>

// The biggest parts first, so the connections finish together.
const jobs = tables
  .flatMap((t) => splitLines(path.join(dir, `${t.table}.copy`), concurrency).map(([from, to]) => ({ ...t, from, to })))
  .sort((a, b) => b.to - b.from - (a.to - a.from))

const clients = await Promise.all(Array.from({ length: concurrency }, async () => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  // The dump already holds the rows store.orders' triggers made (the status log): loading it fires none, and
  // a status log loaded after its orders would otherwise meet the rows their triggers wrote.
  await client.query("SET session_replication_role = replica")
  return client
}))
const started = performance.now()
await Promise.all(clients.map(async (client) => {
  for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) {
    await copyFromFile(client, `COPY store.${job.table} (${job.columns}) FROM STDIN`, path.join(dir, `${job.table}.copy`), job.from, job.to)
  }
}))
const seconds = (performance.now() - started) / 1000
await Promise.all(clients.map((c) => c.end()))
process.stdout.write(`${JSON.stringify({ rows: tables.reduce((n, t) => n + t.rows, 0), seconds })}\n`)
