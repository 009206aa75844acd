import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, type Schema } from "effect"
import { type Page, type QueryParams, StoreClient } from "../../store-client/client.js"
import { isGone } from "../../store-client/errors.js"
import { type Change, Scopes, type ScopedDoc } from "../../warehouse/scopes.js"
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
  /**
   * Lists paged with X-WP-TotalPages: a row can hide between pages while the store changes, and a list can be long
   * (a shop's reviews): its scopes are merged page by page.
   */
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

/** An unpaged listing's documents: one request. */
const fetchListing = (spec: ResourceSpec, listing: Listing) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    if (listing.single) return [withoutNul(yield* store.get(listing.path, listing.params ?? {}, spec.schema))] as ReadonlyArray<Json>
    return itemsOf(yield* store.list(listing.path, listing.params ?? {}, spec.schema))
  })

/** Every document of one scope of an unpaged resource, checked and keyed. */
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

/** What a refresh wrote, as it goes. */
const tally = () => {
  const refreshed = { written: 0, deleted: 0, changed: [] as Array<string> }
  const add = (changes: ReadonlyArray<Change>) => {
    for (const c of changes) {
      if (c.change === "deleted") refreshed.deleted++
      else {
        refreshed.written++
        refreshed.changed.push(c.key)
      }
    }
  }
  return { refreshed, add }
}

/**
 * A paged list of one scope, read whole, each page handed to `onPage` as it comes; returns the keys it listed. A
 * pass holds when every page saw the same X-WP-Total and that many documents came back; a row created or deleted
 * while paging shifts the others, so the list is read again (three passes at most).
 */
const readPaged = <E, R>(spec: ResourceSpec, scope: string, listing: Listing, onPage: (docs: ReadonlyArray<ScopedDoc>) => Effect.Effect<void, E, R>) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    let keys = new Set<string>()
    for (let pass = 1; pass <= 3; pass++) {
      keys = new Set()
      let listed = 0
      const totals = new Set<number>()
      for (let page = 1; ; page++) {
        const p = yield* store.list(listing.path, { ...listing.params, per_page: store.perPage, page }, spec.schema)
        const docs = itemsOf(p).map((doc): ScopedDoc => ({ scope, key: spec.key(doc), doc }))
        for (const d of docs) keys.add(d.key)
        listed += docs.length
        yield* onPage(docs)
        totals.add(p.total)
        if (p.items.length < store.perPage || page >= p.totalPages) break
      }
      if (totals.size === 1 && totals.has(listed)) break
      if (pass < 3) yield* Effect.logInfo(`${listing.path}: the list changed while it was read; reading it again (pass ${pass + 1})`)
    }
    return keys
  })

/**
 * One scope of a paged resource, merged page by page (a list can be longer than memory should hold): each page's
 * new and changed documents are written as it comes; once every list is read whole, the rows they no longer show are
 * marked deleted, with the caller's checkpoint. With paging a row can shift past the reader while the store changes,
 * so a live key the lists did not show is asked for on its own: only its 404 lets it be marked deleted.
 */
const refreshPaged = (
  spec: ResourceSpec,
  scope: string,
  checkpoint: (batch: ReadonlyArray<string>) => Effect.Effect<void, SqlError>,
  add: (changes: ReadonlyArray<Change>) => void
) =>
  Effect.gen(function*() {
    const [sql, store, warehouse] = yield* Effect.all([SqlClient.SqlClient, StoreClient, Scopes])
    const write = (docs: ReadonlyArray<ScopedDoc>) => Effect.map(warehouse.upsert(spec.table, docs), add)
    const listed = new Set<string>()
    for (const listing of spec.listings(scope)) {
      const read = readPaged(spec, scope, listing, write)
      for (const key of yield* (spec.child ? Effect.catchIf(read, isGone, () => Effect.succeed(new Set<string>())) : read)) listed.add(key)
    }
    const item = spec.item
    if (item) {
      const unseen = (yield* warehouse.keys(spec.table, [scope])).filter((r) => !listed.has(r.key))
      const found = yield* Effect.forEach(unseen, (r) =>
        Effect.map(fetchIfExists(spec, item(scope, r.key)), (doc) => (doc === undefined ? [] : [{ scope, key: r.key, doc }])), {
        concurrency: store.concurrency
      })
      for (const d of found.flat()) listed.add(d.key)
      yield* write(found.flat())
    }
    const gone = yield* sql.withTransaction(Effect.zipLeft(warehouse.retireUnlisted(spec.table, scope, [...listed]), checkpoint([scope])))
    add(gone.map((key) => ({ scope, key, change: "deleted" })))
  })

/**
 * Refreshes `scopes` of a resource: each is read whole, so that new and changed documents are written, unchanged
 * ones left alone, and the ones a scope no longer lists marked deleted. Unpaged scopes (a request each) are fetched
 * by batches and merged in one transaction per batch; a paged scope is merged page by page.
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
    const [sql, store, warehouse] = yield* Effect.all([SqlClient.SqlClient, StoreClient, Scopes])
    const { refreshed, add } = tally()
    if (spec.paged) {
      for (const scope of scopes) {
        yield* refreshPaged(spec, scope, checkpoint, add)
        yield* onBatch(1)
      }
      return refreshed satisfies Refreshed
    }
    for (let i = 0; i < scopes.length; i += SCOPES_PER_MERGE) {
      const batch = scopes.slice(i, i + SCOPES_PER_MERGE)
      const docs = (yield* Effect.forEach(batch, (scope) => fetchScope(spec, scope), { concurrency: store.concurrency })).flat()
      add(yield* sql.withTransaction(Effect.zipLeft(warehouse.merge(spec.table, batch, docs), checkpoint(batch))))
      yield* onBatch(batch.length)
    }
    return refreshed satisfies Refreshed
  })

/** Marks deleted the children of parents that are no longer live. */
export const retireOrphans = (spec: ResourceSpec, liveParents: ReadonlyArray<string>) =>
  Effect.flatMap(Scopes, (scopes) => scopes.retireOrphans(spec.table, liveParents))
