import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, type Schema } from "effect"
import { type Page, type QueryParams, StoreClient } from "../../store-client/client.js"
import { isGone } from "../../store-client/errors.js"
import { Scopes, type ScopedDoc } from "../../warehouse/scopes.js"
import { mayHoldNul, withoutNul } from "../../warehouse/screen.js"

export type Json = Readonly<Record<string, unknown>>

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
  /** What every document must hold; the rest of it is kept as the store sent it. */
  readonly schema: Schema.Schema.AnyNoContext
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

/** A list page's documents without NUL characters (PostgreSQL's jsonb cannot hold them): only a page whose text may hold one is cleaned. */
const itemsOf = (page: Page<unknown>): ReadonlyArray<Json> => (mayHoldNul(page.json) ? page.items.map(withoutNul) : page.items) as ReadonlyArray<Json>

const fetchListing = (spec: ResourceSpec, listing: Listing) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    if (listing.single) return [withoutNul(yield* store.get(listing.path, listing.params ?? {}, spec.schema))] as ReadonlyArray<Json>
    if (!spec.paged) return itemsOf(yield* store.list(listing.path, listing.params ?? {}, spec.schema))
    // A pass holds when every page saw the same X-WP-Total and that many documents came back; a row
    // created or deleted while paging shifts the others, so the list is read again (three passes at most).
    let docs: Json[] = []
    for (let pass = 1; pass <= 3; pass++) {
      docs = []
      const totals = new Set<number>()
      for (let page = 1; ; page++) {
        const p = yield* store.list(listing.path, { ...listing.params, per_page: store.perPage, page }, spec.schema)
        docs.push(...itemsOf(p))
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
      docs.push(...(yield* (spec.child ? Effect.catchIf(read, isGone, () => Effect.succeed([])) : read)))
    }
    return docs.map((doc): ScopedDoc => ({ scope, key: spec.key(doc), doc }))
  })

/** The document at `path`, or undefined when the store answers 404 (the only proof that it is gone). */
const fetchIfExists = (spec: ResourceSpec, path: string) =>
  Effect.flatMap(StoreClient, (store) =>
    store.get(path, {}, spec.schema).pipe(
      Effect.map((doc): Json | undefined => withoutNul(doc) as Json),
      Effect.catchIf(isGone, () => Effect.succeed(undefined))
    ))

/**
 * Every document of a batch of scopes. With paging a row can shift past the reader while the store changes,
 * so a live key the lists did not show is asked for on its own: only its 404 lets the merge mark it deleted.
 */
const fetchBatch = (spec: ResourceSpec, batch: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const fetched = (yield* Effect.forEach(batch, (scope) => fetchScope(spec, scope), { concurrency: store.concurrency })).flat()
    const item = spec.item
    if (!item) return fetched
    const seen = new Set(fetched.map((d) => `${d.scope}\u0000${d.key}`))
    const live = yield* Effect.flatMap(Scopes, (scopes) => scopes.keys(spec.table, batch))
    const unseen = live.filter((r) => !seen.has(`${r.scope}\u0000${r.key}`))
    const found = yield* Effect.forEach(unseen, (r) =>
      fetchIfExists(spec, item(r.scope, r.key)).pipe(Effect.map((doc) => (doc === undefined ? [] : [{ scope: r.scope, key: r.key, doc }]))), {
      concurrency: store.concurrency
    })
    return [...fetched, ...found.flat()]
  })

/**
 * Refreshes `scopes` of a resource: each is fetched whole, then merged in one transaction per batch of
 * scopes, so that new and changed documents are written, unchanged ones left alone, and the ones a scope
 * no longer lists marked deleted.
 */
export const refreshScopes = (
  spec: ResourceSpec,
  scopes: ReadonlyArray<string>,
  /** Written in each batch's transaction, after its rows (a full pass's progress). */
  checkpoint: (batch: ReadonlyArray<string>) => Effect.Effect<void, SqlError> = () => Effect.void,
  /** Told how many scopes each stored batch had (a long pass's progress). */
  onBatch: (scopes: number) => Effect.Effect<void> = () => Effect.void
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const warehouse = yield* Scopes
    let written = 0
    let deleted = 0
    const changed: string[] = []
    for (let i = 0; i < scopes.length; i += SCOPES_PER_MERGE) {
      const batch = scopes.slice(i, i + SCOPES_PER_MERGE)
      const docs = yield* fetchBatch(spec, batch)
      const changes = yield* sql.withTransaction(Effect.zipLeft(warehouse.merge(spec.table, batch, docs), checkpoint(batch)))
      yield* onBatch(batch.length)
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
export const retireOrphans = (spec: ResourceSpec, liveParents: ReadonlyArray<string>) =>
  Effect.flatMap(Scopes, (scopes) => scopes.retireOrphans(spec.table, liveParents))
