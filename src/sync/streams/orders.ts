import { Effect, Schema } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { isGone } from "../../store-client/errors.js"
import { Order } from "../../store-client/schemas.js"
import type { RunContext } from "../context.js"
import { type DeletionSpec, findDeletedIfDue } from "../deletions.js"
import { walkListings } from "./listings.js"

/** `status=any` leaves out trashed orders, so trash is walked as a listing of its own with its own cursor. */
export const LISTINGS = [
  { stream: "orders", params: { status: "any" } },
  { stream: "orders.trash", params: { status: "trash" } }
] as const

/** 404 on a single GET is the only proof that an order was deleted for good. */
export const existsOrNotFound = (path: string) =>
  Effect.flatMap(StoreClient, (store) =>
    store.get(path, {}, Schema.Unknown).pipe(
      Effect.as(true),
      Effect.catchIf(isGone, () => Effect.succeed(false))
    ))

const deletionSpec: DeletionSpec = {
  table: "orders",
  path: "/orders",
  field: "modified",
  listings: LISTINGS.map((l) => l.params),
  stillExists: (id) => existsOrNotFound(`/orders/${id}`)
}

/** Orders by modified cursor (any, then trash); forced deletions by count comparison. */
export const syncOrders = (ctx: RunContext) =>
  Effect.gen(function*() {
    const walked = yield* walkListings(ctx, { name: "orders", path: "/orders", kind: "orders", field: "modified", schema: Order, listings: LISTINGS }, () => Effect.void)
    const deleted = yield* findDeletedIfDue(deletionSpec, ctx, walked.total)
    return { rows: walked.rows, deleted: deleted.length }
  })
