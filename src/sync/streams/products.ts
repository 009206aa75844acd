import { Effect, Ref } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { Product, Variation } from "../../store-client/schemas.js"
import { replaceChildren } from "../children.js"
import type { Outputs, RunContext } from "../context.js"
import { findDeletedIfDue } from "../deletions.js"
import { existsOrNotFound } from "./orders.js"
import { walkListings } from "./listings.js"

export const LISTINGS = [
  { stream: "products", params: { status: "any" } },
  { stream: "products.trash", params: { status: "trash" } }
] as const

/** A variable product's complete variation list, read and loaded; returns how many. */
export const readVariations = (productId: number) =>
  replaceChildren({ parentId: productId, path: `/products/${productId}/variations`, kind: "variations", schema: Variation }).pipe(
    Effect.map((docs) => docs.length)
  )

/**
 * Products by modified cursor, and the variations of each variable product that changed, from its own list (the
 * `variations` stream reads every variable product's on its periodic full pass). Tells which it read.
 */
export const syncProducts = (ctx: RunContext, output: Ref.Ref<Outputs["products"]>) =>
  Effect.gen(function*() {
    const variable = new Set<number>()
    const walked = yield* walkListings(ctx, { name: "products", path: "/products", kind: "products", field: "modified", schema: Product, listings: LISTINGS }, (docs) =>
      Effect.sync(() => {
        for (const d of docs) if (d.type === "variable") variable.add(d.id)
      }))
    const store = yield* StoreClient
    const variations = yield* Effect.forEach(variable, (productId) =>
      readVariations(productId).pipe(Effect.tap(() => Ref.update(output, (o) => ({ variable: new Set([...o.variable, productId]) })))),
      { concurrency: store.concurrency })
    const deleted = yield* findDeletedIfDue(
      { table: "products", path: "/products", field: "modified", listings: LISTINGS.map((l) => l.params), stillExists: (id) => existsOrNotFound(`/products/${id}`) },
      ctx,
      walked.total
    )
    return { rows: walked.rows + variations.reduce((n, v) => n + v, 0), deleted: deleted.length }
  })
