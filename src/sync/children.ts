import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import { StoreClient } from "../store-client/client.js"
import { fenced } from "../warehouse/lease.js"
import { LiveRows } from "../warehouse/live-rows.js"
import { Loader, type LoadKind } from "../warehouse/loader.js"
import { mayHoldNul, screener } from "../warehouse/screen.js"
import type { Doc } from "./walk.js"

/**
 * A parent's complete child list (an order's refunds, a product's variations): every page is read,
 * then loaded with the parent id added, and the children the list no longer has are marked deleted,
 * all in one transaction. Children that do not fit their schema are quarantined (and not taken for deleted).
 */
export const replaceChildren = <A extends Doc>(options: {
  readonly parentId: number
  readonly path: string
  readonly kind: LoadKind & ("refunds" | "variations")
  readonly schema: Schema.Schema<A, any>
}) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const screen = screener(options.kind, options.schema)
    const items: Array<unknown> = []
    let clean = false
    for (let page = 1; ; page++) {
      const p = yield* store.list(options.path, { per_page: store.perPage, page, orderby: "id", order: "asc" }, Schema.Unknown)
      items.push(...p.items.map((d) => (d !== null && typeof d === "object" ? { ...d, parent_id: options.parentId } : d)))
      clean ||= mayHoldNul(p.json)
      if (p.items.length < store.perPage) break
    }
    const { docs, rejected, cleaned } = screen(items, clean)
    const [sql, loader, live] = yield* Effect.all([SqlClient.SqlClient, Loader, LiveRows])
    const table = options.kind === "refunds" ? "refunds" : "product_variations"
    const present = [...docs.map((d) => d.id), ...rejected.flatMap((r) => (/^\d+$/.test(r.id) ? [Number(r.id)] : []))]
    yield* fenced(sql)(Effect.zipRight(
      loader.load({ kind: options.kind, docs, rejected, cleaned }),
      live.markMissingChildren(table, options.parentId, present)
    ))
    return docs
  })
