import { Effect, Schema } from "effect"
import { StoreClient } from "../../store/client.js"
import { StoreDocumentInvalid } from "../../store/errors.js"
import { SalesReport } from "../../store/schemas.js"
import { query } from "../../warehouse/writer.js"
import type { RunContext } from "../context.js"
import { DAY, dayToSecond, secondToDay } from "../time.js"

/** The report groups by month over ranges longer than about three months; ask for less. */
const CHUNK_DAYS = 90

/** The days to fetch: those this run changed; all days with orders on the first run; the window of a backfill. */
const daysToFetch = (ctx: RunContext) =>
  Effect.gen(function*() {
    if (ctx.mode.kind === "backfill") return { first: ctx.mode.since, last: ctx.mode.until }
    const [known] = yield* query<{ n: number }>("sales_report_count", [ctx.storeId])
    if ((known?.n ?? 0) === 0) {
      const [range] = yield* query<{ first: string | null; last: string | null }>("order_days_range", [ctx.storeId])
      if (range?.first && range.last) return { first: range.first, last: range.last }
    }
    const days = [...ctx.dirtyDays].filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d)).sort()
    return days.length === 0 ? undefined : { first: days[0]!, last: days[days.length - 1]! }
  })

/** The store's own /reports/sales by day, kept beside the warehouse's figures for reconciliation. */
export const syncReports = (ctx: RunContext) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const range = yield* daysToFetch(ctx)
    if (range === undefined) return { rows: 0, deleted: 0 }
    const decode = Schema.decodeUnknownEither(SalesReport)
    let rows = 0
    const end = dayToSecond(range.last)
    for (let start = dayToSecond(range.first); start <= end; start += CHUNK_DAYS * DAY) {
      const dateMin = secondToDay(start)
      const dateMax = secondToDay(Math.min(end, start + (CHUNK_DAYS - 1) * DAY))
      const body = yield* store.get("/reports/sales", { date_min: dateMin, date_max: dateMax })
      const report = decode(body)
      if (report._tag === "Left") {
        return yield* new StoreDocumentInvalid({ url: "/reports/sales", detail: String(report.left) })
      }
      const [{ totals, totals_grouped_by }] = report.right
      if (totals_grouped_by !== "day") {
        return yield* new StoreDocumentInvalid({ url: "/reports/sales", detail: `totals grouped by ${totals_grouped_by}, expected day` })
      }
      const days = Object.entries(totals).map(([day, t]) => ({ day, ...t }))
      if (days.length > 0) yield* query("sales_report_upsert", [ctx.storeId, JSON.stringify(days)])
      yield* ctx.progress.page("reports", days.length, days.length)
      rows += days.length
    }
    return { rows, deleted: 0 }
  })
