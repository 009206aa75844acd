import { Effect } from "effect"
import { StoreClient } from "../../store/client.js"
import { StoreDocumentInvalid } from "../../store/errors.js"
import { Customer, validator } from "../../store/schemas.js"
import { idsOf, loadPage, query, readState, saveCursor } from "../../warehouse/writer.js"
import type { RunContext } from "../context.js"
import { existsOrNotFound } from "./orders.js"

const check = validator(Customer)
const PATH = "/customers"

const loadChecked = (ctx: RunContext, items: ReadonlyArray<unknown>, total: number) =>
  Effect.gen(function*() {
    const problem = check(items)
    if (problem !== undefined) return yield* new StoreDocumentInvalid({ url: PATH, detail: problem })
    yield* loadPage("customers", ctx.storeId, items)
    yield* ctx.progress.page("customers", items.length, total)
    return (items as ReadonlyArray<Customer>).map((c) => c.id)
  })

/**
 * Customers have no modified filter, so changes are found by a full scan whose unchanged rows are not
 * rewritten (hash comparison in SQL). Between full scans (when SHOPSYNC_CUSTOMERS_FULL_SCAN_HOURS > 0)
 * only the customers of orders loaded by this run are fetched, by id.
 */
export const syncCustomers = (ctx: RunContext, fullScanHours: number) =>
  Effect.gen(function*() {
    const state = yield* readState(ctx.storeId, "customers")
    const lastFull = Number(state.details.lastFullScan ?? 0)
    const due = ctx.mode.kind === "backfill" || fullScanHours <= 0 || ctx.upper - lastFull >= fullScanHours * 3600
    if (!due) return { rows: yield* byId(ctx), deleted: 0 }
    const { rows, seen } = yield* fullScan(ctx)
    const gone = idsOf(yield* query<{ id: string }>("customers_live_ids", [ctx.storeId])).filter((id) => !seen.has(id))
    const deleted: number[] = []
    for (const id of gone) if (!(yield* existsOrNotFound(`${PATH}/${id}`))) deleted.push(id)
    if (deleted.length > 0) yield* query("customers_mark_deleted", [ctx.storeId, deleted])
    yield* saveCursor(ctx.storeId, "customers", null, 0, { lastFullScan: ctx.upper })
    return { rows, deleted: deleted.length }
  })

/**
 * Pages by id. A customer deleted mid-scan shifts later rows back a page; a pass counts as complete
 * only when X-WP-Total held still, otherwise the scan runs again (ids accumulate across passes).
 */
const fullScan = (ctx: RunContext) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const seen = new Set<number>()
    let rows = 0
    for (let pass = 1; pass <= 3; pass++) {
      let firstTotal: number | undefined
      let stable = true
      for (let page = 1; ; page++) {
        const p = yield* store.list(PATH, { orderby: "id", order: "asc", per_page: store.perPage, page })
        firstTotal ??= p.total
        if (p.total !== firstTotal) stable = false
        for (const id of yield* loadChecked(ctx, p.items, p.total)) seen.add(id)
        rows += p.items.length
        if (p.items.length < store.perPage) break
      }
      if (stable) break
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
      rows += (yield* loadChecked(ctx, p.items, ids.length)).length
    }
    return rows
  })
