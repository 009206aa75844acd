/**
 * COPY through the `pg` client without pg-copy-streams: a Query subclass (pg's Submittable extension
 * point) answers the server's CopyInResponse with file chunks, or collects CopyData for COPY TO STDOUT.
 * The connection methods used (sendCopyFromChunk, endCopyFrom) are the ones pg-copy-streams uses.
 */
import { once } from "node:events"
import * as fs from "node:fs"
import pg from "pg"

interface CopyConnection {
  readonly stream: NodeJS.WritableStream & { readonly writableNeedDrain: boolean }
  sendCopyFromChunk(chunk: Buffer): void
  endCopyFrom(): void
  sendCopyFail(message: string): void
}

/** Streams bytes [from, to) of a COPY text file to `COPY … FROM STDIN`, 1 MiB at a time, minding backpressure. */
class CopyFromFile extends pg.Query {
  constructor(text: string, private readonly file: string, private readonly from: number, private readonly to: number) {
    super(text)
  }

  handleCopyInResponse(connection: CopyConnection) {
    this.send(connection).catch((e) => connection.sendCopyFail(String(e)))
  }

  private async send(connection: CopyConnection) {
    const fd = fs.openSync(this.file, "r")
    try {
      for (let pos = this.from; pos < this.to;) {
        const chunk = Buffer.allocUnsafe(Math.min(1 << 20, this.to - pos))
        const n = fs.readSync(fd, chunk, 0, chunk.length, pos)
        if (n === 0) break
        pos += n
        connection.sendCopyFromChunk(chunk.subarray(0, n))
        if (connection.stream.writableNeedDrain) await once(connection.stream, "drain")
      }
      connection.endCopyFrom()
    } finally {
      fs.closeSync(fd)
    }
  }
}

/** Writes what `COPY … TO STDOUT` sends into a file. */
class CopyToFile extends pg.Query {
  constructor(text: string, private readonly out: fs.WriteStream) {
    super(text)
  }

  handleCopyData(message: { chunk: Buffer }) {
    // The parser reuses its buffer: copy before it moves on.
    this.out.write(Buffer.from(message.chunk))
  }
}

const run = (client: pg.Client, query: pg.Query) =>
  new Promise<void>((resolve, reject) => {
    query.on("end", () => resolve())
    query.on("error", reject)
    client.query(query)
  })

export const copyFromFile = (client: pg.Client, text: string, file: string, from: number, to: number) =>
  run(client, new CopyFromFile(text, file, from, to))

export const copyToFile = async (client: pg.Client, text: string, file: string) => {
  const out = fs.createWriteStream(file)
  await run(client, new CopyToFile(text, out))
  out.end()
  await once(out, "close")
}

/** `parts` byte ranges of a COPY text file, cut after a newline (one row per line). */
export const splitLines = (file: string, parts: number): Array<[number, number]> => {
  const size = fs.statSync(file).size
  const fd = fs.openSync(file, "r")
  const cuts = [0]
  const probe = Buffer.alloc(64 * 1024)
  for (let i = 1; i < parts; i++) {
    let at = Math.max(cuts[cuts.length - 1]!, Math.floor((size * i) / parts))
    while (at < size) {
      const n = fs.readSync(fd, probe, 0, probe.length, at)
      const nl = probe.subarray(0, n).indexOf(10)
      if (nl >= 0) {
        at += nl + 1
        break
      }
      at += n
    }
    cuts.push(Math.min(at, size))
  }
  fs.closeSync(fd)
  cuts.push(size)
  return cuts.slice(0, -1).map((c, i): [number, number] => [c, cuts[i + 1]!]).filter(([a, b]) => b > a)
}

/** The warehouse tables the benchmark copies, with their stored (not generated) columns. */
export const tableColumns = async (client: pg.Client): Promise<Array<{ table: string; columns: string }>> =>
  (await client.query<{ table: string; columns: string }>(
    `SELECT c.relname AS table, string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) AS columns
     FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
     WHERE c.relnamespace = 'store'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     GROUP BY c.relname ORDER BY c.relname`
  )).rows
