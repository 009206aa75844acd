import { createHash } from "node:crypto"
import { Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { StoreDocumentInvalid } from "../../store-client/errors.js"
import { Customer, validator } from "../../store-client/schemas.js"
import { idsOf, loadPage, query } from "../../warehouse/writer.js"
import type { RunContext } from "../context.js"
import { fullPassDone, fullPassDue } from "../full-pass.js"
import { existsOrNotFound } from "./orders.js"

const check = validator(Customer)
const PATH = "/customers"

/** The md5 of a document's JSON text: what store.customers.doc_hash holds. */
const hashOf = (doc: unknown) => createHash("md5").update(JSON.stringify(doc)).digest("hex")

/**
 * Loads the customers of a page whose document is new or changed; the others are only compared (their
 * hashes, read for the page's ids), so a scan of an unchanged store sends the warehouse no documents.
 * Returns how many were written: what the run reports, as for every stream.
 */
const loadChecked = (ctx: RunContext, items: ReadonlyArray<unknown>, total: number) =>
  Effect.gen(function*() {
    const problem = check(items)
    if (problem !== undefined) return yield* new StoreDocumentInvalid({ url: PATH, detail: problem })
    const customers = (items as ReadonlyArray<Customer>).map((doc) => ({ doc, hash: hashOf(doc) }))
    const stored = yield* query<{ id: string; doc_hash: string }>("customers_hashes", [ctx.storeId, customers.map((c) => c.doc.id)])
    const known = new Map(stored.map((r) => [Number(r.id), r.doc_hash]))
    const changed = customers.filter((c) => known.get(c.doc.id) !== c.hash)
    for (const c of changed) ctx.changedCustomers.add(c.doc.id)
    if (changed.length > 0) {
      const hashes = Object.fromEntries(changed.map((c) => [c.doc.id, c.hash]))
      yield* loadPage("customers", ctx.storeId, changed.map((c) => c.doc), { mergeParams: [JSON.stringify(hashes)] })
    }
    yield* ctx.progress.page("customers", items.length, total)
    return changed.length
  })

/**
 * Customers have no modified filter, so changes are found by a full scan whose unchanged rows are not
 * sent to the warehouse (hash comparison). Between full scans (when SHOPSYNC_CUSTOMERS_FULL_SCAN_HOURS > 0)
 * only the customers of orders loaded by this run are fetched, by id.
 */
export const syncCustomers = (ctx: RunContext, fullScanHours: number) =>
  Effect.gen(function*() {
    const due = ctx.mode.kind === "backfill" || (yield* fullPassDue(ctx, "customers", fullScanHours))
    if (!due) return { rows: yield* Effect.zipRight(ctx.ordersDone, byId(ctx)), deleted: 0 }
    const { rows, seen } = yield* fullScan(ctx)
    const gone = idsOf(yield* query<{ id: string }>("customers_live_ids", [ctx.storeId])).filter((id) => !seen.has(id))
    const deleted: number[] = []
    for (const id of gone) if (!(yield* existsOrNotFound(`${PATH}/${id}`))) deleted.push(id)
    if (deleted.length > 0) yield* query("customers_mark_deleted", [ctx.storeId, deleted])
    yield* fullPassDone(ctx, "customers")
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
    const seen = new Set<number>()
    let rows = 0
    const scanPage = (page: number) =>
      store.list(PATH, { orderby: "id", order: "asc", per_page: store.perPage, page }).pipe(
        Effect.flatMap((p) => loadChecked(ctx, p.items, p.total).pipe(Effect.map((written) => ({ p, written })))),
        Effect.map(({ p, written }) => {
          for (const c of p.items as ReadonlyArray<Customer>) seen.add(c.id)
          rows += written
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

const byId = (ctx: RunContext) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const ids = [...ctx.orderCustomers]
    let rows = 0
    for (let i = 0; i < ids.length; i += store.perPage) {
      const chunk = ids.slice(i, i + store.perPage)
      const p = yield* store.list(PATH, { include: chunk.join(","), per_page: store.perPage })
      rows += yield* loadChecked(ctx, p.items, ids.length)
    }
    return rows
  })
