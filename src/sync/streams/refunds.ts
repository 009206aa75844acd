import { Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { StoreRequestFailed } from "../../store-client/errors.js"
import { validator, Refund } from "../../store-client/schemas.js"
import { idsOf, query } from "../../warehouse/writer.js"
import { replaceChildren } from "../children.js"
import type { RunContext } from "../context.js"
import { findDeleted } from "../deletions.js"
import { fullPassDone, fullPassDue } from "../full-pass.js"
import { walkStream } from "../slices.js"
import type { Doc, WalkSpec } from "../walk.js"
import { createdWindow } from "./window.js"

const spec: WalkSpec = { path: "/refunds", params: {}, field: "created", kind: "refunds", check: validator(Refund) }

const isNoRoute = (e: unknown): e is StoreRequestFailed => e instanceof StoreRequestFailed && e.status === 404

/**
 * Refunds come from the store-wide list (cursor on date_created): deleting a refund does not touch its
 * order, so order cursors would never see it go. Stores without that endpoint get per-order lists: for
 * the orders this run loaded (creating a refund bumps its order's date_modified), the orders whose
 * documents list other refunds than the warehouse holds (a read that failed is retried on the next run),
 * and on a periodic full pass every order with refunds (what shows a deleted refund).
 */
export const syncRefunds = (ctx: RunContext, fullPassHours: number) =>
  Effect.gen(function*() {
    const onPage = (docs: ReadonlyArray<Doc>, page: { total: number }) => ctx.progress.page("refunds", docs.length, page.total)

    const storeWide = ctx.mode.kind === "backfill"
      ? walkStream(spec, { storeId: ctx.storeId, stream: null, ...createdWindow(ctx.mode, ctx.upper), onPage })
      : walkStream(spec, { storeId: ctx.storeId, stream: "refunds", upper: ctx.upper, onPage })

    const rows = yield* storeWide.pipe(
      Effect.map((n) => ({ rows: n, storeWide: true })),
      Effect.catchIf(isNoRoute, () =>
        Effect.logInfo("refunds: this store has no store-wide /refunds endpoint; reading refunds per order").pipe(
          Effect.zipRight(ctx.ordersDone),
          Effect.zipRight(perOrder(ctx, fullPassHours, onPage)),
          Effect.map((n) => ({ rows: n, storeWide: false }))
        ))
    )
    if (!rows.storeWide) return { rows: rows.rows, deleted: 0 }

    // Refunds never change after creation, so one missing from the store-wide list is gone.
    const deleted = yield* findDeleted(
      { table: "refunds", path: "/refunds", field: "created", listings: [{}], stillExists: () => Effect.succeed(false) },
      ctx.storeId,
      ctx.upper
    )
    if (deleted.length > 0) yield* Effect.logInfo(`refunds: ${deleted.length} deleted in the store, marked deleted`)
    return { rows: rows.rows, deleted: deleted.length }
  })

const perOrder = (ctx: RunContext, fullPassHours: number, onPage: (docs: ReadonlyArray<Doc>, page: { total: number }) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const full = yield* fullPassDue(ctx, "refunds", fullPassHours)
    const more = idsOf(yield* query<{ id: string }>("refunds_orders_to_read", [ctx.storeId, full]))
    const orders = new Set([...ctx.changedOrders, ...more])
    const counts = yield* Effect.forEach(orders, (orderId) =>
      replaceChildren({
        storeId: ctx.storeId,
        parentId: orderId,
        path: `/orders/${orderId}/refunds`,
        kind: "refunds",
        check: validator(Refund),
        markMissing: "refunds_of_order_mark_deleted"
      }).pipe(Effect.tap((docs) => onPage(docs, { total: orders.size })), Effect.map((docs) => docs.length)), { concurrency: store.concurrency })
    if (full) yield* fullPassDone(ctx, "refunds")
    return counts.reduce((n, c) => n + c, 0)
  })
