import { type Context, Effect, ParseResult, Schema } from "effect"
import type { QueryParams, StoreClient } from "../store-client/client.js"
import { StoreDocumentInvalid } from "../store-client/errors.js"

type Store = Context.Tag.Service<StoreClient>

/** A list page whose every item fits `schema` (extra fields kept: the warehouse stores documents whole). */
export const listOf = <A, I>(store: Store, path: string, params: QueryParams, schema: Schema.Schema<A, I>) =>
  Effect.flatMap(store.list(path, params), (page) => {
    const decode = Schema.decodeUnknownEither(schema, { onExcessProperty: "preserve" })
    const items: A[] = []
    for (const doc of page.items) {
      const result = decode(doc)
      if (result._tag === "Left") {
        const id = doc && typeof doc === "object" && "id" in doc ? ` (id ${String((doc as { id: unknown }).id)})` : ""
        return Effect.fail(new StoreDocumentInvalid({ url: path, detail: `document${id}: ${ParseResult.TreeFormatter.formatErrorSync(result.left)}` }))
      }
      items.push(result.right)
    }
    return Effect.succeed({ ...page, items })
  })

/** A single document (or report) that fits `schema`. */
export const getOf = <A, I>(store: Store, path: string, params: QueryParams, schema: Schema.Schema<A, I>) =>
  Effect.flatMap(store.get(path, params), (body) =>
    Effect.mapError(
      Schema.decodeUnknown(schema, { onExcessProperty: "preserve" })(body),
      (e) => new StoreDocumentInvalid({ url: path, detail: ParseResult.TreeFormatter.formatErrorSync(e) })
    ))
