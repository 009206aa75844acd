import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import type { StoreError } from "../../store-client/errors.js"
import { Refund } from "../../store-client/schemas.js"
import { LiveRows } from "../../warehouse/live-rows.js"
import { replaceChildren } from "../children.js"
import type { RunContext } from "../context.js"
import { findDeletedIfDue } from "../deletions.js"
import { SyncState } from "../state.js"
import { walkListings } from "./listings.js"

const isNotFound = (e: StoreError | SqlError) => e._tag === "StoreRequestFailed" && e.status === 404

/**
 * Refunds come from the store-wide list (cursor on date_created): deleting a refund does not touch its
 * order, so order cursors would never see it go. Stores without that endpoint get per-order lists of the
 * orders whose documents list other refunds than the warehouse holds (creating a refund bumps its order's
 * date_modified: the order is read again, listing it; a read that failed is retried on the next run), and on
 * a periodic full pass of every order with refunds (what shows a deleted refund). An order whose document
 * lists the refunds the warehouse holds is not asked: refunds never change (a backfill asked for the list of
 * every order it wrote, most of them without a refund).
 */
export const syncRefunds = (ctx: RunContext, ordersEnded: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const storeWide = walkListings(ctx, { name: "refunds", path: "/refunds", kind: "refunds", field: "created", schema: Refund, listings: [{ stream: "refunds", params: {} }] }, () => Effect.void)
    const rows = yield* storeWide.pipe(
      Effect.map((walked) => ({ rows: walked.rows, total: walked.total, storeWide: true })),
      Effect.catchIf(isNotFound, () =>
        Effect.logInfo("refunds: this store has no store-wide /refunds endpoint; reading refunds per order").pipe(
          Effect.zipRight(ordersEnded),
          Effect.zipRight(perOrder(ctx)),
          Effect.map((n) => ({ rows: n, total: undefined, storeWide: false }))
        ))
    )
    if (!rows.storeWide) return { rows: rows.rows, deleted: 0 }
    const restored = yield* Effect.zipRight(ordersEnded, restoredRefunds(ctx))

    // Refunds never change after creation, so one missing from the store-wide list is gone.
    const deleted = yield* findDeletedIfDue(
      { table: "refunds", path: "/refunds", field: "created", listings: [{}], stillExists: () => Effect.succeed(false) },
      ctx,
      rows.total
    )
    return { rows: rows.rows + restored, deleted: deleted.length }
  })

/**
 * Refunds that come back with their order from the trash. With the posts storage WooCommerce trashes an order's
 * refunds with it (they leave GET /refunds) and restores them with their old date, behind the created cursor: the
 * orders this run wrote whose documents list a refund the warehouse does not hold have their refunds read.
 */
const restoredRefunds = (ctx: RunContext) =>
  Effect.gen(function*() {
    const unheld = yield* Effect.flatMap(LiveRows, (live) => live.ordersListingUnheldRefunds(ctx.runId))
    return unheld.length === 0 ? 0 : yield* perOrderRefunds(ctx, unheld)
  })

const perOrder = (ctx: RunContext) =>
  Effect.gen(function*() {
    const state = yield* SyncState
    const full = yield* state.fullPassDue("refunds", ctx.childrenFullPassHours, ctx.upper)
    const rows = yield* perOrderRefunds(ctx, yield* Effect.flatMap(LiveRows, (live) => live.ordersWithRefundsToRead(full)))
    if (full) yield* state.fullPassDone("refunds", ctx.upper)
    return rows
  })

/** Each order's complete refund list, read and loaded (the refunds it no longer lists marked deleted); how many. */
const perOrderRefunds = (ctx: RunContext, orders: ReadonlyArray<number>) =>
  Effect.flatMap(StoreClient, (store) =>
    Effect.forEach(orders, (orderId) =>
      replaceChildren({ parentId: orderId, path: `/orders/${orderId}/refunds`, kind: "refunds", schema: Refund }).pipe(
        Effect.tap((docs) => ctx.progress.page("refunds", docs.length, orders.length)),
        Effect.map((docs) => docs.length)
      ), { concurrency: store.concurrency }).pipe(Effect.map((counts) => counts.reduce((n, c) => n + c, 0))))
