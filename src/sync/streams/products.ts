import { Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { Product, Variation } from "../../store-client/schemas.js"
import { LiveRows } from "../../warehouse/live-rows.js"
import { replaceChildren } from "../children.js"
import type { RunContext } from "../context.js"
import { findDeletedIfDue } from "../deletions.js"
import { SyncState } from "../state.js"
import { existsOrNotFound } from "./orders.js"
import { walkListings } from "./listings.js"

const LISTINGS = [
  { stream: "products", params: { status: "any" } },
  { stream: "products.trash", params: { status: "trash" } }
] as const

/**
 * Products by modified cursor; the variations of each variable product that changed, from its own list,
 * and of every variable product on a periodic full pass (a variation's edit need not touch its product).
 */
export const syncProducts = (ctx: RunContext) =>
  Effect.gen(function*() {
    const variable = new Set<number>()
    let rows = yield* walkListings(ctx, { name: "products", path: "/products", kind: "products", field: "modified", schema: Product, listings: LISTINGS }, (docs) =>
      Effect.sync(() => {
        for (const d of docs) if (d.type === "variable") variable.add(d.id)
      }))
    const store = yield* StoreClient
    const state = yield* SyncState
    const fullPass = yield* state.fullPassDue("variations", ctx.childrenFullPassHours, ctx.upper)
    if (fullPass) for (const id of yield* Effect.flatMap(LiveRows, (live) => live.variableProducts)) variable.add(id)
    const variations = yield* Effect.forEach(variable, (productId) =>
      replaceChildren({ parentId: productId, path: `/products/${productId}/variations`, kind: "variations", schema: Variation }).pipe(
        Effect.map((docs) => docs.length)
      ), { concurrency: store.concurrency })
    if (fullPass) yield* state.fullPassDone("variations", ctx.upper)
    rows += variations.reduce((n, v) => n + v, 0)
    const deleted = yield* findDeletedIfDue(
      { table: "products", path: "/products", field: "modified", listings: LISTINGS.map((l) => l.params), stillExists: (id) => existsOrNotFound(`/products/${id}`) },
      ctx
    )
    return { rows, deleted: deleted.length }
  })
