import { Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { isGone } from "../../store-client/errors.js"
import { validator, Order } from "../../store-client/schemas.js"
import type { RunContext } from "../context.js"
import { type DeletionSpec, findDeleted } from "../deletions.js"
import { walkStream } from "../slices.js"
import type { Doc, WalkSpec } from "../walk.js"
import { createdWindow } from "./window.js"

/** `status=any` leaves out trashed orders, so trash is walked as a listing of its own with its own cursor. */
const LISTINGS = [
  { stream: "orders", params: { status: "any" } },
  { stream: "orders.trash", params: { status: "trash" } }
] as const

/** 404 on a single GET is the only proof that an order was deleted for good. */
export const existsOrNotFound = (path: string) =>
  Effect.flatMap(StoreClient, (store) =>
    store.get(path).pipe(
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

export const syncOrders = (ctx: RunContext) =>
  Effect.gen(function*() {
    const onPage = (docs: ReadonlyArray<Doc>, page: { total: number }) =>
      Effect.sync(() => {
        for (const d of docs) {
          ctx.changedOrders.add(d.id)
          const customer = Number(d.customer_id)
          if (customer > 0) ctx.orderCustomers.add(customer)
        }
      }).pipe(Effect.zipRight(ctx.progress.page("orders", docs.length, page.total)))
    let rows = 0
    for (const listing of LISTINGS) {
      const spec: WalkSpec = { path: "/orders", params: listing.params, field: "modified", kind: "orders", check: validator(Order) }
      rows += yield* (ctx.mode.kind === "backfill"
        ? walkStream({ ...spec, field: "created" }, { storeId: ctx.storeId, stream: null, ...createdWindow(ctx.mode, ctx.upper), onPage })
        : walkStream(spec, { storeId: ctx.storeId, stream: listing.stream, upper: ctx.upper, onPage }))
    }
    const deleted = yield* findDeleted(deletionSpec, ctx.storeId, ctx.upper)
    if (deleted.length > 0) yield* Effect.logInfo(`orders: ${deleted.length} deleted in the store, marked deleted`)
    return { rows, deleted: deleted.length }
  })
