import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import { catalogueComments } from "./catalogue.js"
import { grantReader } from "./reader-role.js"
import { sqlFile, sqlFolder, sqlText } from "./sql-files.js"

/**
 * A model of `sql/models/<layer>/`: a view or function named `<schema>.<object>`, created with CREATE OR REPLACE.
 * The layer (intermediate, marts, sync) is its folder.
 */
export interface Model {
  readonly layer: string
  readonly name: string
  readonly text: string
}

/** The models in the order `sql/models/manifest.txt` lists them as `<layer>/<name>` (blank lines and `#` comments aside). */
export const models = (): ReadonlyArray<Model> =>
  sqlText("models/manifest.txt").split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const slash = line.lastIndexOf("/")
      return { layer: line.slice(0, Math.max(slash, 0)), name: line.slice(slash + 1), text: sqlFile(`models/${line}`) }
    })

/**
 * Changes with any model's name, place in the list or text: what `public.shopsync_models` records as created. Not
 * with its layer: moving a file between folders re-creates nothing.
 */
export const modelsDigest = (list: ReadonlyArray<Model>): string => {
  const hash = createHash("sha256")
  for (const m of list) hash.update(`${m.name}\0${m.text}\0`)
  return hash.digest("hex")
}

const Seen = Schema.Struct({ applied: Schema.Array(Schema.String), models: Schema.NullOr(Schema.String) })

/**
 * Brings the warehouse up to date in one transaction, which an advisory lock serialises with any other migrator
 * (concurrent starts are safe; a failure applies nothing):
 *  1. applies the `sql/migrations/NNN_*.sql` not recorded in `public.shopsync_migrations`, in name order (it records
 *     names, not texts: a released migration's comments may be edited, its statements never);
 *  2. re-creates the models when a migration was applied or they differ from those last created (their digest in
 *     `public.shopsync_models`). Every command runs this: when nothing changed it costs the lock, the bookkeeping
 *     tables' CREATE IF NOT EXISTS and one SELECT, and leaves the views alone (re-creating one waits for, and
 *     blocks, every query reading it);
 *  3. creates the read-only role for consumers where the user may, and grants it what a re-created view lost.
 * `level` stops at that migration (a restore first rebuilds the schema its backup was taken from).
 */
export const migrateTo = (level?: string) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtext('shopsync:migrate'))`
    yield* sql`CREATE TABLE IF NOT EXISTS public.shopsync_migrations (
      version     text        PRIMARY KEY,
      applied_at  timestamptz NOT NULL DEFAULT now()
    )`
    // One row: the digest of the models migrate last created.
    yield* sql`CREATE TABLE IF NOT EXISTS public.shopsync_models (
      one         boolean     PRIMARY KEY DEFAULT true CHECK (one),
      digest      text        NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now()
    )`
    const seen = yield* SqlSchema.single({
      Request: Schema.Void,
      Result: Seen,
      execute: () =>
        sql`SELECT array(SELECT version FROM public.shopsync_migrations) AS applied,
                   (SELECT digest FROM public.shopsync_models) AS models`
    })(undefined)
    const applied = new Set(seen.applied)
    const known = sqlFolder("migrations")
    const pending = known.filter((m) => !applied.has(m.name) && (level === undefined || m.name <= level))
    // Up to an older level (a restore of an older backup), the current models may not fit the tables yet.
    const complete = level === undefined || known.every((m) => m.name <= level)
    for (const m of pending) {
      yield* Effect.logInfo(`migrate: applying ${m.name}`)
      yield* sql.unsafe(m.text)
      yield* sql`INSERT INTO public.shopsync_migrations (version) VALUES (${m.name})`
    }
    const list = models()
    // The catalogue's comments follow the models (re-creating a view can drop them) and count in their digest.
    const comments = catalogueComments()
    const digest = modelsDigest([...list, { layer: "", name: "catalogue", text: comments }])
    const modelsRefreshed = complete && (pending.length > 0 || seen.models !== digest)
    if (modelsRefreshed) {
      for (const m of list) yield* sql.unsafe(m.text)
      yield* sql.unsafe(comments)
      yield* sql`INSERT INTO public.shopsync_models (digest) VALUES (${digest})
        ON CONFLICT (one) DO UPDATE SET digest = EXCLUDED.digest, created_at = now()`
    }
    const reader = complete && (yield* grantReader(pending.length > 0 || modelsRefreshed))
    return { applied: pending.map((m) => m.name), total: applied.size + pending.length, modelsRefreshed, reader }
  }))
})

/** Brings the warehouse to the current level (what every command runs first). */
export const migrate = migrateTo()
