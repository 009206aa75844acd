import { Effect } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { validator, Product, Variation } from "../../store-client/schemas.js"
import { idsOf, query } from "../../warehouse/writer.js"
import { replaceChildren } from "../children.js"
import type { RunContext } from "../context.js"
import { findDeleted } from "../deletions.js"
import { fullPassDone, fullPassDue } from "../full-pass.js"
import { walkStream } from "../slices.js"
import type { Doc, WalkSpec } from "../walk.js"
import { existsOrNotFound } from "./orders.js"
import { createdWindow } from "./window.js"

const LISTINGS = [
  { stream: "products", params: { status: "any" } },
  { stream: "products.trash", params: { status: "trash" } }
] as const

/**
 * Products by modified cursor; the variations of each variable product that changed, from its own list,
 * and of every variable product on a periodic full pass (a variation's edit need not touch its product).
 */
export const syncProducts = (ctx: RunContext, childrenFullPassHours: number) =>
  Effect.gen(function*() {
    const variable = new Set<number>()
    const onPage = (docs: ReadonlyArray<Doc>, page: { total: number }) =>
      Effect.sync(() => {
        for (const d of docs) if (d.type === "variable") variable.add(d.id)
      }).pipe(Effect.zipRight(ctx.progress.page("products", docs.length, page.total)))
    let rows = 0
    for (const listing of LISTINGS) {
      const spec: WalkSpec = { path: "/products", params: listing.params, field: "modified", kind: "products", check: validator(Product) }
      rows += yield* (ctx.mode.kind === "backfill"
        ? walkStream({ ...spec, field: "created" }, { storeId: ctx.storeId, stream: null, ...createdWindow(ctx.mode, ctx.upper), onPage })
        : walkStream(spec, { storeId: ctx.storeId, stream: listing.stream, upper: ctx.upper, onPage }))
    }
    const store = yield* StoreClient
    const fullPass = yield* fullPassDue(ctx, "variations", childrenFullPassHours)
    if (fullPass) for (const id of idsOf(yield* query<{ id: string }>("parents_variable_products", [ctx.storeId]))) variable.add(id)
    const variations = yield* Effect.forEach(variable, (productId) => syncVariations(ctx.storeId, productId), { concurrency: store.concurrency })
    if (fullPass) yield* fullPassDone(ctx, "variations")
    rows += variations.reduce((n, v) => n + v, 0)
    const deleted = yield* findDeleted(
      { table: "products", path: "/products", field: "modified", listings: LISTINGS.map((l) => l.params), stillExists: (id) => existsOrNotFound(`/products/${id}`) },
      ctx.storeId,
      ctx.upper
    )
    return { rows, deleted: deleted.length }
  })

const syncVariations = (storeId: string, productId: number) =>
  replaceChildren({
    storeId,
    parentId: productId,
    path: `/products/${productId}/variations`,
    kind: "variations",
    check: validator(Variation),
    markMissing: "variations_of_product_mark_deleted"
  }).pipe(Effect.map((docs) => docs.length))
