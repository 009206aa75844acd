import { Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { StoreDocumentInvalid } from "../../store-client/errors.js"
import { SalesReport } from "../../store-client/schemas.js"
import { Loader } from "../../warehouse/loader.js"
import type { RunContext } from "../context.js"
import { SyncState } from "../state.js"
import { DAY, dayToSecond } from "../time.js"

/** The report groups by month over ranges longer than about three months; ask for less. */
const CHUNK_DAYS = 90

/** Sorted days grouped into spans of at most CHUNK_DAYS, one request each. */
export const spans = (days: ReadonlyArray<string>): Array<{ first: string; last: string }> => {
  const out: Array<{ first: string; last: string }> = []
  for (const day of days) {
    const current = out[out.length - 1]
    if (current && dayToSecond(day) - dayToSecond(current.first) < CHUNK_DAYS * DAY) current.last = day
    else out.push({ first: day, last: day })
  }
  return out
}

/**
 * The store's own /reports/sales by day, for every day the warehouse changed since it was last fetched
 * (noted by the tables' triggers with the rows that changed them), kept beside the warehouse's figures.
 */
export const syncReports = (ctx: RunContext) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const [loader, state] = yield* Effect.all([Loader, SyncState])
    const pending = yield* state.reportDaysPending
    // Spans are independent (each with its days' checkpoint): asked for together.
    const loadSpan = (span: { readonly first: string; readonly last: string }) =>
      Effect.gen(function*() {
        const [{ totals, totals_grouped_by }] = yield* store.get("/reports/sales", { date_min: span.first, date_max: span.last }, SalesReport)
        if (totals_grouped_by !== "day") {
          return yield* new StoreDocumentInvalid({ url: "/reports/sales", detail: `totals grouped by ${totals_grouped_by}, expected day` })
        }
        const days = Object.entries(totals).map(([day, t]) => ({ day, ...t }))
        // The store's figures are written over, not added: a span asked for again changes nothing.
        yield* loader.loadSalesReport(days, span)
        yield* ctx.progress.page("reports", days.length, pending.length)
        return days.length
      })
    const loaded = yield* Effect.forEach(spans(pending), loadSpan, { concurrency: store.concurrency })
    return { rows: loaded.reduce((n, d) => n + d, 0), deleted: 0 }
  })
