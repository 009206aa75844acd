import * as SqlClient from "@effect/sql/SqlClient"
import { createHash } from "node:crypto"
import { Effect, Schema } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { Customer } from "../../store-client/schemas.js"
import { LiveRows } from "../../warehouse/live-rows.js"
import { Loader } from "../../warehouse/loader.js"
import { mayHoldNul, type Screened, screener } from "../../warehouse/screen.js"
import type { RunContext } from "../context.js"
import { SeenIds } from "../seen-ids.js"
import { SyncState } from "../state.js"
import { existsOrNotFound } from "./orders.js"
import { heldBefore, retryQuarantined } from "./quarantined.js"

const PATH = "/customers"
/** Every role: the API's default lists only `customer`, leaving out subscribers, staff and shops' own roles. */
const EVERY_ROLE = { role: "all" } as const
const screen = screener("customers", Customer)

/** A page of customers, read without a schema and checked one by one (NULs removed first when it may hold any). */
const readPage = (params: Record<string, string | number>) =>
  Effect.flatMap(StoreClient, (store) =>
    Effect.map(store.list(PATH, { ...EVERY_ROLE, ...params }, Schema.Unknown), (p) => ({ ...p, screened: screen(p.items, mayHoldNul(p.json)) })))

/** A document's JSON text and its md5: what store.customers.doc_hash holds. */
export const hashed = <A>(doc: A) => {
  const text = JSON.stringify(doc)
  return { doc, text, hash: createHash("md5").update(text).digest("hex") }
}

/**
 * Loads the customers of a page whose document is new or changed (all of them with `every`); the others are only
 * compared (their hashes, read for the page's ids), so a scan of an unchanged store sends the warehouse no
 * documents. The page's misfits are quarantined with it. Returns how many were written (what the run reports, as
 * for every stream) and the ids set aside.
 */
const loadChanged = (ctx: RunContext, page: Screened<Customer>, total: number, every = false) =>
  Effect.gen(function*() {
    const [sql, loader] = yield* Effect.all([SqlClient.SqlClient, Loader])
    const customers = page.docs
    const known = every ? new Map<number, string>() : yield* loader.customerHashes(customers.map((c) => c.id))
    const changed = customers.map(hashed).filter((c) => known.get(c.doc.id) !== c.hash)
    let refused: ReadonlyArray<string> = []
    if (changed.length > 0 || page.rejected.length > 0) {
      const hashes = Object.fromEntries(changed.map((c) => [c.doc.id, c.hash]))
      const docs = changed.map((c) => c.doc)
      // The texts just hashed are the page to stage: serialized once.
      const json = `[${changed.map((c) => c.text).join(",")}]`
      refused = yield* sql.withTransaction(loader.load({ kind: "customers", docs, json, hashes, rejected: page.rejected, cleaned: page.cleaned }))
    }
    yield* ctx.progress.page("customers", customers.length, total)
    return { written: changed.length - (refused.length - page.rejected.length), refused }
  })

/**
 * Customers have no modified filter, so changes are found by a full scan whose unchanged rows are not
 * sent to the warehouse (hash comparison), every SHOPSYNC_CUSTOMERS_FULL_SCAN_HOURS (default 24; the endpoint
 * computes spend and order counts per customer, so it is slow on real stores). In between, a run reads the new
 * registrations, newest first until a known id, and the customers of the orders it wrote, by id. Every role is
 * read; quarantined customers are read again by id at the end.
 */
export const syncCustomers = (ctx: RunContext, ordersEnded: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const state = yield* SyncState
    const due = ctx.mode.kind === "backfill" || (yield* state.fullPassDue("customers", ctx.customersFullScanHours, ctx.upper))
    const held = yield* heldBefore("customers")
    const retry = retryQuarantined("customers", Customer, (page) =>
      Effect.map(loadChanged(ctx, page, page.docs.length, true), ({ refused }) => refused), held)
    if (!due) {
      const registered = yield* newRegistrations(ctx)
      yield* ordersEnded
      const rows = yield* byId(ctx, yield* Effect.flatMap(LiveRows, (live) => live.buyersInRun(ctx.runId)))
      return { rows: registered + rows + (yield* retry).length, deleted: 0 }
    }
    const scanned = yield* fullScan(ctx)
    const rows = scanned.rows + (yield* retry).length
    const live = yield* LiveRows
    const gone = yield* unseenCustomers(scanned.seen)
    const deleted: number[] = []
    for (const id of gone) if (!(yield* existsOrNotFound(`${PATH}/${id}`))) deleted.push(id)
    if (deleted.length > 0) yield* live.markDeleted("customers", deleted)
    yield* state.fullPassDone("customers", ctx.upper)
    return { rows, deleted: deleted.length }
  })

/**
 * Pages by id, STORE_CONCURRENCY pages at a time once the first page has told how many there are (and
 * on past them while pages come back full). A customer deleted mid-scan shifts later rows back a page;
 * a pass counts as complete only when every page saw the first page's X-WP-Total, otherwise the scan
 * runs again (ids accumulate across passes).
 */
const fullScan = (ctx: RunContext) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const seen = new SeenIds()
    let rows = 0
    const scanPage = (page: number) =>
      readPage({ orderby: "id", order: "asc", per_page: store.perPage, page }).pipe(
        Effect.tap((p) => Effect.map(loadChanged(ctx, p.screened, p.total), ({ written }) => { rows += written })),
        Effect.map((p) => {
          for (const c of p.screened.docs) seen.add(c.id)
          // A quarantined customer is still there: not a deletion to confirm.
          for (const r of p.screened.rejected) if (/^\d+$/.test(r.id)) seen.add(Number(r.id))
          return { total: p.total, full: p.items.length === store.perPage }
        })
      )
    for (let pass = 1; pass <= 3; pass++) {
      const first = yield* scanPage(1)
      const pages = Math.ceil(first.total / store.perPage)
      const rest = yield* Effect.forEach(Array.from({ length: Math.max(0, pages - 1) }, (_, i) => i + 2), scanPage, { concurrency: store.concurrency })
      const scanned = [first, ...rest]
      for (let page = scanned.length + 1; scanned[scanned.length - 1]!.full; page++) scanned.push(yield* scanPage(page))
      if (scanned.every((p) => p.total === first.total)) break
      yield* Effect.logInfo(`customers: the customer count changed during the scan; scanning again (pass ${pass + 1})`)
    }
    return { rows, seen }
  })

/** Live customers the warehouse reads at a time when it looks for those a full scan did not see. */
const UNSEEN_CHUNK = 10_000

/**
 * The warehouse's live customers a full scan did not see (deleted from the store, or registered since), read in id
 * order a chunk at a time: memory stays flat whatever the number of customers.
 */
export const unseenCustomers = (seen: SeenIds, chunk = UNSEEN_CHUNK) =>
  Effect.gen(function*() {
    const live = yield* LiveRows
    const unseen: number[] = []
    for (let after: string | null = null; ;) {
      const keys: ReadonlyArray<string> = yield* live.parentsAfter("customers", after, chunk, null, null)
      for (const key of keys) if (!seen.has(Number(key))) unseen.push(Number(key))
      if (keys.length < chunk) return unseen
      after = keys[keys.length - 1]!
    }
  })

/**
 * Customers registered since the highest id the warehouse has: newest first, a page at a time, until a known id.
 * The newest customer is asked for alone first: on most runs nobody registered, and a page of a hundred customers is
 * what the store computes spend and order counts for (its slow part) and the sync parses and compares, for nothing.
 */
const newRegistrations = (ctx: RunContext) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const known = (yield* Effect.flatMap(LiveRows, (live) => live.lastCustomerId)) ?? 0
    const [newest] = (yield* readPage({ orderby: "id", order: "desc", per_page: 1 })).items
    const newestId = Number((newest as { id?: unknown } | undefined)?.id)
    if (newest === undefined || (Number.isInteger(newestId) && newestId <= known)) return 0
    let rows = 0
    for (let page = 1; ; page++) {
      const p = yield* readPage({ orderby: "id", order: "desc", per_page: store.perPage, page })
      rows += (yield* loadChanged(ctx, p.screened, p.total)).written
      const reachedKnown = p.screened.docs.some((c) => c.id <= known)
      if (reachedKnown || p.items.length < store.perPage) return rows
    }
  })

const byId = (ctx: RunContext, ids: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    let rows = 0
    for (let i = 0; i < ids.length; i += store.perPage) {
      const chunk = ids.slice(i, i + store.perPage)
      const p = yield* readPage({ include: chunk.join(","), per_page: store.perPage })
      rows += (yield* loadChanged(ctx, p.screened, ids.length)).written
    }
    return rows
  })
