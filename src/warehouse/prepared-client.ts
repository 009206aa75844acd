import { createHash } from "node:crypto"
import pg from "pg"

/**
 * Named statements a connection keeps at most: texts built with a varying shape (an IN list's length) stay bounded,
 * and so does the server's memory for them (about 40 KB a statement with its plan).
 */
export const MAX_NAMED = 200

type Callback = (err: Error | null, result?: unknown) => void
type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown

/** A table a prepared statement reads changed shape (a migration added a column to a `SELECT *`). */
const isStalePlan = (err: unknown) =>
  (err as { code?: string } | null)?.code === "0A000" && /cached plan must not change result type/.test((err as Error).message)

/**
 * A pg client that runs every statement with parameters as a named prepared statement of its connection: the server
 * parses it once per connection and, after a few runs, plans it once when a generic plan costs no more than the
 * custom ones (PostgreSQL's plan cache). An incremental sync runs the same hundred-odd statements for every store:
 * this halved the server's planning time per sync. Statements without parameters (several in one text, BEGIN, SET)
 * keep the simple protocol, and past MAX_NAMED texts a connection runs new ones unnamed. A statement whose table
 * changed shape since it was prepared is prepared again under a new name: at once when it ran on its own (outside a
 * transaction), else from its next run (the transaction it failed in fails, as it would on any error).
 */
export class PreparedClient extends pg.Client {
  private readonly names = new Map<string, string>()
  private renamed = 0

  // `any`: pg types query as a dozen overloads; this takes them all and names only a text with values.
  override query(config: any, values?: any, callback?: any): any {
    const run = super.query.bind(this) as Query
    const name = typeof config === "string" && Array.isArray(values) && values.length > 0 ? this.nameOf(config) : undefined
    if (name === undefined) return run(config, values, callback)
    if (typeof callback !== "function") {
      return new Promise((resolve, reject) => this.query(config, values, (err: Error | null, result?: unknown) => (err ? reject(err) : resolve(result))))
    }
    const alone = this.idle()
    return run({ name, text: config, values }, (err: Error | null, result?: unknown) => {
      if (err === null || !isStalePlan(err)) return (callback as Callback)(err, result)
      const renamed = this.rename(config)
      if (!alone) return (callback as Callback)(err)
      run({ name: renamed, text: config, values }, callback)
    })
  }

  /** The name of `text`'s statement on this connection, undefined once MAX_NAMED are taken by others. */
  private nameOf(text: string): string | undefined {
    const known = this.names.get(text)
    if (known !== undefined || this.names.size >= MAX_NAMED) return known
    const name = `shopsync_${createHash("sha1").update(text).digest("hex")}`
    this.names.set(text, name)
    return name
  }

  /** A new name for `text`: its next run prepares it again (the old statement stays until the connection closes). */
  private rename(text: string): string {
    const name = `${this.names.get(text)!.split("-")[0]}-${++this.renamed}`
    this.names.set(text, name)
    return name
  }

  /** Nothing under way on this connection, outside any transaction: a statement sent now runs on its own (pg's own fields). */
  private idle(): boolean {
    const self = this as unknown as { _txStatus?: string | null; readyForQuery?: boolean; _queryQueue?: ReadonlyArray<unknown> }
    return self._txStatus === "I" && self.readyForQuery === true && (self._queryQueue?.length ?? 0) === 0
  }
}
