import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { type QueryParams, StoreClient } from "../../store-client/client.js"
import { isGone, StoreDocumentInvalid } from "../../store-client/errors.js"
import type { PageCheck } from "../../store-client/schemas.js"
import { sqlFile } from "../../warehouse/sql-files.js"
import { query } from "../../warehouse/writer.js"

export type Json = Record<string, unknown>

/** One request whose documents belong to a scope: a list (every page of it, when paged) or one document. */
export interface Listing {
  readonly path: string
  readonly params?: QueryParams
  /** The answer is one document, not a list (`/data/currencies/current`). */
  readonly single?: boolean
}

/**
 * A resource kept by full refreshes of scopes (see sql/migrations/004_store_resources.sql): what to ask
 * for a scope, how to name a document in it, and where it goes.
 */
export interface ResourceSpec {
  /** The table, schema-qualified; passed to PostgreSQL as a regclass value, never spliced into SQL. */
  readonly table: string
  readonly listings: (scope: string) => ReadonlyArray<Listing>
  /** Lists paged with X-WP-TotalPages: a row can hide between pages while the store changes. */
  readonly paged: boolean
  /** The document's key within its scope. */
  readonly key: (doc: Json) => string
  /**
   * The single GET of a document, for a paged resource: a key a refresh did not see is marked deleted only
   * when this answers 404 (and loaded when it answers the document).
   */
  readonly item?: (scope: string, key: string) => string
  /** Scopes are parents: a 404 on a scope's list (not an unknown route) means the parent is gone, and so are its children. */
  readonly child?: boolean
  readonly check: PageCheck
}

export interface Refreshed {
  /** Documents written: new, changed, or back after being gone. */
  readonly written: number
  readonly deleted: number
  /** The keys created or changed, for the children that follow them. */
  readonly changed: ReadonlyArray<string>
}

/** Scopes per transaction: a batch of parents (orders, customers) is fetched together, then merged at once. */
const SCOPES_PER_MERGE = 50

const fetchListing = (spec: ResourceSpec, listing: Listing) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    if (listing.single) return [yield* store.get(listing.path, listing.params)]
    if (!spec.paged) return (yield* store.list(listing.path, listing.params)).items
    // A pass holds when every page saw the same X-WP-Total and that many documents came back; a row
    // created or deleted while paging shifts the others, so the list is read again (three passes at most).
    let docs: unknown[] = []
    for (let pass = 1; pass <= 3; pass++) {
      docs = []
      const totals = new Set<number>()
      for (let page = 1; ; page++) {
        const p = yield* store.list(listing.path, { ...listing.params, per_page: store.perPage, page })
        docs.push(...p.items)
        totals.add(p.total)
        if (p.items.length < store.perPage || page >= p.totalPages) break
      }
      if (totals.size === 1 && totals.has(docs.length)) break
      if (pass < 3) yield* Effect.logInfo(`${listing.path}: the list changed while it was read; reading it again (pass ${pass + 1})`)
    }
    return docs
  })

/** Every document of one scope, checked and keyed. */
const fetchScope = (spec: ResourceSpec, scope: string) =>
  Effect.gen(function*() {
    const docs: Json[] = []
    for (const listing of spec.listings(scope)) {
      const read = fetchListing(spec, listing)
      const items = yield* (spec.child ? Effect.catchIf(read, isGone, () => Effect.succeed([])) : read)
      const problem = spec.check(items)
      if (problem !== undefined) return yield* new StoreDocumentInvalid({ url: listing.path, detail: problem })
      docs.push(...(items as ReadonlyArray<Json>))
    }
    return docs.map((doc) => ({ scope, key: spec.key(doc), doc }))
  })

/** The document at `path`, or undefined when the store answers 404 (the only proof that it is gone). */
const fetchIfExists = (path: string) =>
  Effect.flatMap(StoreClient, (store) =>
    store.get(path).pipe(
      Effect.map((doc): Json | undefined => doc as Json),
      Effect.catchIf(isGone, () => Effect.succeed(undefined))
    ))

/**
 * Refreshes `scopes` of a resource: each is fetched whole, then merged in one transaction per batch of
 * scopes, so that new and changed documents are written, unchanged ones left alone, and the ones a scope
 * no longer lists marked deleted. With paging a row can shift past the reader while the store changes,
 * so before anything is marked deleted its own GET must answer 404.
 */
export const refreshScopes = (spec: ResourceSpec, storeId: string, scopes: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const sql = yield* SqlClient.SqlClient
    let written = 0
    let deleted = 0
    const changed: string[] = []
    for (let i = 0; i < scopes.length; i += SCOPES_PER_MERGE) {
      const batch = scopes.slice(i, i + SCOPES_PER_MERGE)
      const fetched = (yield* Effect.forEach(batch, (scope) => fetchScope(spec, scope), { concurrency: store.concurrency })).flat()
      if (spec.item) {
        const item = spec.item
        const seen = new Set(fetched.map((d) => `${d.scope}\u0000${d.key}`))
        const live = yield* query<{ scope: string; key: string }>("scope_keys", [spec.table, storeId, batch])
        const unseen = live.filter((r) => !seen.has(`${r.scope}\u0000${r.key}`))
        const found = yield* Effect.forEach(unseen, (r) =>
          fetchIfExists(item(r.scope, r.key)).pipe(Effect.map((doc) => (doc === undefined ? [] : [{ scope: r.scope, key: r.key, doc }]))), { concurrency: store.concurrency })
        const problem = spec.check(found.flat().map((f) => f.doc))
        if (problem !== undefined) return yield* new StoreDocumentInvalid({ url: spec.table, detail: problem })
        fetched.push(...found.flat())
      }
      const changes = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql.unsafe(sqlFile("load/scope_stage"))
        if (fetched.length > 0) yield* sql.unsafe(sqlFile("load/scope_stage_insert"), [JSON.stringify(fetched)])
        return yield* query<{ scope: string; key: string; change: string }>("scope_merge", [spec.table, storeId, batch])
      }))
      for (const c of changes) {
        if (c.change === "deleted") deleted++
        else {
          written++
          changed.push(c.key)
        }
      }
    }
    return { written, deleted, changed } satisfies Refreshed
  })

/** Marks deleted the children of parents that are no longer live. */
export const retireOrphans = (spec: ResourceSpec, storeId: string, liveParents: ReadonlyArray<string>) =>
  query<{ retired: number }>("scope_retire_orphans", [spec.table, storeId, liveParents]).pipe(Effect.map(([r]) => Number(r?.retired ?? 0)))
