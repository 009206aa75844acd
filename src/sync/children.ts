import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, type Schema } from "effect"
import { StoreClient } from "../store-client/client.js"
import { LiveRows } from "../warehouse/live-rows.js"
import { Loader, type LoadKind } from "../warehouse/loader.js"
import type { Doc } from "./walk.js"

/**
 * A parent's complete child list (an order's refunds, a product's variations): every page is read,
 * then loaded with the parent id added, and the children the list no longer has are marked deleted,
 * all in one transaction.
 */
export const replaceChildren = <A extends Doc>(options: {
  readonly parentId: number
  readonly path: string
  readonly kind: LoadKind & ("refunds" | "variations")
  readonly schema: Schema.Schema<A, any>
}) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const docs: Array<A & { readonly parent_id: number }> = []
    for (let page = 1; ; page++) {
      const p = yield* store.list(options.path, { per_page: store.perPage, page, orderby: "id", order: "asc" }, options.schema)
      docs.push(...p.items.map((d) => ({ ...d, parent_id: options.parentId })))
      if (p.items.length < store.perPage) break
    }
    const [sql, loader, live] = yield* Effect.all([SqlClient.SqlClient, Loader, LiveRows])
    const table = options.kind === "refunds" ? "refunds" : "product_variations"
    yield* sql.withTransaction(Effect.zipRight(
      loader.load({ kind: options.kind, docs }),
      live.markMissingChildren(table, options.parentId, docs.map((d) => d.id))
    ))
    return docs
  })
