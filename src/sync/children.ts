import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { StoreClient } from "../store-client/client.js"
import { StoreDocumentInvalid } from "../store-client/errors.js"
import type { PageCheck } from "../store-client/schemas.js"
import { type LoadKind, loadPage, query } from "../warehouse/writer.js"
import type { Doc } from "./walk.js"

/**
 * A parent's complete child list (an order's refunds, a product's variations): every page is read,
 * then loaded with the parent id added, and the children the list no longer has are marked deleted,
 * all in one transaction.
 */
export const replaceChildren = (options: {
  readonly storeId: string
  readonly parentId: number
  readonly path: string
  readonly kind: LoadKind
  readonly check: PageCheck
  /** `sql/queries/<name>.sql` taking (store id, parent id, ids still present). */
  readonly markMissing: string
}) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const sql = yield* SqlClient.SqlClient
    const docs: Doc[] = []
    for (let page = 1; ; page++) {
      const p = yield* store.list(options.path, { per_page: store.perPage, page, orderby: "id", order: "asc" })
      const problem = options.check(p.items)
      if (problem !== undefined) return yield* new StoreDocumentInvalid({ url: options.path, detail: problem })
      docs.push(...(p.items as ReadonlyArray<Doc>).map((d) => ({ ...d, parent_id: options.parentId })))
      if (p.items.length < store.perPage) break
    }
    yield* sql.withTransaction(
      loadPage(options.kind, options.storeId, docs).pipe(
        Effect.zipRight(query(options.markMissing, [options.storeId, options.parentId, docs.map((d) => d.id)]))
      )
    )
    return docs
  })
