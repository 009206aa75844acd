import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import { Refund } from "../store-client/schemas.js"
import { replaceChildren } from "../sync/children.js"
import { type Applied, type DocumentResource, fromStore, markDeleted } from "./apply.js"

/** What `shopsync resync` can read again by id. A refund is read again with its order (the store lists them per order). */
export const RESYNC_RESOURCES = ["order", "refund", "customer", "product"] as const
export type ResyncResource = (typeof RESYNC_RESOURCES)[number]

/** One document read again: what became of it, and whether the store no longer has it. */
export interface Resynced {
  readonly resource: ResyncResource
  readonly id: number
  readonly applied: Applied
  readonly gone: boolean
}

const OrderOf = Schema.Array(Schema.Struct({ order_id: Schema.NumberFromString }))

/** The order a refund belongs to, as the warehouse holds it. */
const orderOfRefund = (storeId: string, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT order_id FROM store.refunds WHERE store_id = ${storeId} AND id = ${id}`.pipe(
      Effect.flatMap(Schema.decodeUnknown(OrderOf)), Effect.orDie, Effect.map((rows) => rows[0]?.order_id)))

/**
 * The store's current document `id` loaded as a delivery of it would be (screened, only over an older copy), or
 * marked deleted when the store answers 404; an order's refunds are read again with it whatever the warehouse holds.
 */
const reread = (storeId: string, resource: DocumentResource, id: number) =>
  Effect.gen(function*() {
    let gone = false
    const applied = yield* fromStore(storeId, resource, id, Effect.suspend(() => {
      gone = true
      return markDeleted(resource, id)
    }))
    if (resource === "order" && !gone && applied.outcome.state !== "failed") {
      yield* replaceChildren({ parentId: id, path: `/orders/${id}/refunds`, kind: "refunds", schema: Refund })
    }
    return { applied, gone }
  })

/** `shopsync resync <resource> <id>`: one document read again from the store, in one transaction. */
export const resyncOne = Effect.fn("webhooks.resync")(function*(storeId: string, resource: ResyncResource, id: number) {
  yield* Effect.annotateCurrentSpan({ "shopsync.store": storeId, "shopsync.resource": resource, "shopsync.id": id })
  const sql = yield* SqlClient.SqlClient
  if (resource !== "refund") return { resource, id, ...(yield* sql.withTransaction(reread(storeId, resource, id))) } satisfies Resynced
  const order = yield* orderOfRefund(storeId, id)
  if (order === undefined) {
    const reason = `refund ${id} is not in the warehouse, so its order is unknown: resync the order (\`shopsync resync order ORDER_ID\`)`
    return { resource, id, applied: { outcome: { state: "failed", reason }, contacts: false }, gone: false } satisfies Resynced
  }
  return { resource, id, ...(yield* sql.withTransaction(reread(storeId, "order", order))) } satisfies Resynced
})
