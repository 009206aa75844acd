import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { ParseError } from "effect/ParseResult"
import { createHash } from "node:crypto"
import { Clock, Effect, Either, Option, Schema } from "effect"
import { StoreClient } from "../store-client/client.js"
import { isGone, type StoreError } from "../store-client/errors.js"
import { Customer, Order, Product, Refund } from "../store-client/schemas.js"
import { replaceChildren } from "../sync/children.js"
import { readVariations } from "../sync/streams/products.js"
import { LiveRows } from "../warehouse/live-rows.js"
import { Loader } from "../warehouse/loader.js"
import { type Resource, screener } from "../warehouse/screen.js"
import { isRefusal, refusalText } from "../warehouse/sql-error.js"
import type { Outcome } from "./inbox.js"
import { TOPICS, type Topic } from "./headers.js"
import { screenBody, screenDocument } from "./screen-body.js"

/** What applying a delivery did: its outcome, and whether contacts may have changed (orders and customers). */
export interface Applied {
  readonly outcome: Outcome
  readonly contacts: boolean
}

type Table = "orders" | "customers" | "products"
/** The resources a topic names (order, customer, product): what a delivery or `shopsync resync` loads by id. */
export type DocumentResource = keyof typeof KINDS
/** Per resource of a topic: its table, its load kind and the schema its documents must fit. */
const KINDS = {
  order: { table: "orders", kind: "orders", schema: Order },
  customer: { table: "customers", kind: "customers", schema: Customer },
  product: { table: "products", kind: "products", schema: Product }
} as const

const failed = (reason: string): Applied => ({ outcome: { state: "failed", reason }, contacts: false })
const skipped = (reason: string): Applied => ({ outcome: { state: "skipped", reason }, contacts: false })
const applied = (contacts: boolean): Applied => ({ outcome: { state: "applied" }, contacts })

/** A row that does not fit its schema is a defect of this module; a SqlError stays one (the pass tries it again). */
const dieOnParseError = <A, R>(query: Effect.Effect<A, SqlError | ParseError, R>) => Effect.catchTag(query, "ParseError", (e) => Effect.die(e))

const Held = Schema.Array(Schema.Struct({ modified: Schema.NullOr(Schema.String), same: Schema.Boolean }))

/**
 * Whether `doc` is newer than the row the warehouse holds: a later date_modified_gmt, or the same date with other
 * content (jsonb equality, so key order and spacing do not count). A resend or an older copy is not. Left: the
 * warehouse refuses the document as jsonb (a lone surrogate), said in PostgreSQL's words; the query runs in a
 * savepoint, so the refusal leaves the delivery's transaction usable for recording it.
 */
const isNewer = (storeId: string, table: Table, doc: Record<string, unknown>, json: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.withTransaction(dieOnParseError(
      sql`SELECT doc->>'date_modified_gmt' AS modified, doc = ${json}::jsonb AS same
          FROM ${sql(`store.${table}`)} WHERE store_id = ${storeId} AND id = ${Number(doc.id)}`.pipe(Effect.flatMap(Schema.decodeUnknown(Held)))
    )).pipe(Effect.map(Either.right), Effect.catchIf(isRefusal, (e) => Effect.succeed(Either.left(refusalText(e)))))
    return Either.map(rows, ([held]) => {
      if (held === undefined || held.modified === null) return true
      const incoming = String(doc.date_modified_gmt ?? "")
      return incoming > held.modified || (incoming === held.modified && !held.same)
    })
  })

/** The md5 of a customer's JSON text: what store.customers.doc_hash holds (the sync's full scan compares it). */
const hashOf = (doc: unknown) => createHash("md5").update(JSON.stringify(doc)).digest("hex")

const RefundIds = Schema.Array(Schema.Struct({ id: Schema.NumberFromString }))

/** The order's refunds read again from the store when its document lists others than the warehouse holds. */
const refreshRefunds = (storeId: string, doc: Record<string, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const listed = (Array.isArray(doc.refunds) ? doc.refunds : []).map((r) => Number((r as { id?: unknown }).id)).sort((a, b) => a - b)
    const held = yield* dieOnParseError(
      sql`SELECT id FROM store.refunds WHERE store_id = ${storeId} AND order_id = ${Number(doc.id)} AND deleted_at IS NULL ORDER BY id`.pipe(
        Effect.flatMap(Schema.decodeUnknown(RefundIds))))
    if (listed.join(",") === held.map((r) => r.id).join(",")) return false
    yield* replaceChildren({ parentId: Number(doc.id), path: `/orders/${doc.id}/refunds`, kind: "refunds", schema: Refund })
    return true
  })

/**
 * How far past this process's clock a delivery's date_modified_gmt may be before it is not taken on trust: store and
 * server clocks differ by seconds, not minutes. A later date would make the document outrank every true copy after it.
 */
export const FUTURE_SKEW_MS = 5 * 60_000

/** A document's date_modified_gmt in epoch ms (WooCommerce writes it without a zone: UTC); NaN when it has none. */
const modifiedMs = (doc: Record<string, unknown>) => {
  const text = doc.date_modified_gmt
  return typeof text === "string" ? Date.parse(/(Z|[+-]\d\d:\d\d)$/i.test(text) ? text : `${text}Z`) : Number.NaN
}

/**
 * Loads a created or updated document (screened: see screen-body.ts) when it is newer than the warehouse's copy; an
 * order's refunds follow. One the warehouse refuses ends failed with PostgreSQL's reason. A document dated more than
 * FUTURE_SKEW_MS ahead is not `confirmed`: the store's own copy is read and loaded instead (see confirmWithStore).
 */
const upsert = (storeId: string, resource: keyof typeof KINDS, doc: unknown, confirmed = false): Effect.Effect<Applied, SqlError | StoreError, StoreClient | SqlClient.SqlClient | Loader | LiveRows> =>
  Effect.gen(function*() {
    const { table, kind, schema } = KINDS[resource]
    if (resource === "product" && isVariation(doc)) {
      yield* readVariations(Number((doc as { parent_id: unknown }).parent_id))
      return applied(false)
    }
    const { docs, rejected } = screener(kind as Resource, schema as Schema.Schema<unknown>)([doc], false)
    if (rejected.length > 0) return failed(`the ${resource} does not fit its schema: ${rejected[0]!.reason}`)
    const record = docs[0] as Record<string, unknown>
    if (!confirmed && modifiedMs(record) > (yield* Clock.currentTimeMillis) + FUTURE_SKEW_MS) return yield* confirmWithStore(storeId, resource, record)
    const [sql, loader] = yield* Effect.all([SqlClient.SqlClient, Loader])
    const judged = yield* isNewer(storeId, table, record, JSON.stringify(record))
    if (Either.isLeft(judged)) return failed(`the warehouse refuses the ${resource}: ${judged.left}`)
    const newer = judged.right
    if (newer) {
      const hashes = resource === "customer" ? { [Number(record.id)]: hashOf(record) } : undefined
      const setAside = yield* sql.withTransaction(loader.load({ kind, docs: [record], ...(hashes ? { hashes } : {}) }))
      if (setAside.length > 0) return failed(`the warehouse refuses the ${resource}: set aside in store.quarantine`)
      if (resource === "product" && record.type === "variable") yield* readVariations(Number(record.id))
    }
    const refunds = resource === "order" ? yield* refreshRefunds(storeId, record) : false
    if (!newer && !refunds) return skipped("the warehouse holds this version or a newer one")
    return applied(resource !== "product")
  })

const isVariation = (doc: unknown) => {
  const d = doc as { type?: unknown; parent_id?: unknown }
  return d.type === "variation" || (typeof d.type !== "string" && typeof d.parent_id === "number" && d.parent_id > 0)
}

/**
 * `*.deleted` carries only the id, and WooCommerce sends it for the trash as for a deletion: the store is asked.
 * Gone (404): the row is marked deleted (an order's refunds with it). Still there: its current document is loaded
 * (a trashed order or product keeps its row with status trash, as the sync keeps it).
 */
const remove = (storeId: string, resource: keyof typeof KINDS, doc: unknown) =>
  Effect.gen(function*() {
    const id = Number((doc as { id?: unknown } | null)?.id)
    if (!Number.isInteger(id) || id <= 0) return failed("the body has no id")
    return yield* fromStore(storeId, resource, id, markDeleted(resource, id))
  })

/**
 * A document dated past the skew (a wrong clock, or a forged delivery that would outrank the true copies after it):
 * the store's copy is loaded instead, whatever its date; one the store does not have ends failed.
 */
const confirmWithStore = (storeId: string, resource: keyof typeof KINDS, doc: Record<string, unknown>) =>
  fromStore(storeId, resource, Number(doc.id), Effect.succeed(failed(
    `the ${resource} is dated ${String(doc.date_modified_gmt)}, more than ${FUTURE_SKEW_MS / 60_000} minutes ahead, and the store does not have it`
  )))

/** Loads the store's current document `id`, or runs `gone` when the store answers 404. */
export const fromStore = <R>(storeId: string, resource: keyof typeof KINDS, id: number, gone: Effect.Effect<Applied, SqlError, R>) =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const current = yield* store.get(`/${KINDS[resource].table}/${id}`, {}, Schema.Unknown).pipe(
      Effect.map(Option.some),
      Effect.catchIf(isGone, () => Effect.succeed(Option.none()))
    )
    if (Option.isNone(current)) return yield* gone
    // The store's current document is screened as a delivery's is: it may hold a NUL or nest too deep as well.
    const screened = screenDocument(current.value, true)
    return Either.isLeft(screened) ? failed(screened.left) : yield* upsert(storeId, resource, screened.right, true)
  })

/** The store no longer has it (404): its row is marked deleted, an order's refunds with it. */
export const markDeleted = (resource: keyof typeof KINDS, id: number) =>
  Effect.gen(function*() {
    const live = yield* LiveRows
    yield* live.markDeleted(KINDS[resource].table, [id])
    if (resource === "order") yield* live.markMissingChildren("refunds", id, [])
    return applied(resource !== "product")
  })

/**
 * Applies one delivery of `topic` with `body`; a body or topic that can never be applied ends failed, with the
 * reason. The body is screened (depth, NULs) before anything recurses over it.
 */
export const applyDelivery = (storeId: string, topic: string, body: string): Effect.Effect<Applied, SqlError | StoreError, StoreClient | SqlClient.SqlClient | Loader | LiveRows> =>
  Effect.gen(function*() {
    if (!(TOPICS as ReadonlyArray<string>).includes(topic)) return failed(`topic ${topic} is not one shopsync applies (${TOPICS.join(", ")})`)
    const screened = screenBody(body)
    if (Either.isLeft(screened)) return failed(screened.left)
    const doc = screened.right
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return failed("the body is not a JSON object")
    const [resource, event] = (topic as Topic).split(".") as [keyof typeof KINDS, string]
    return event === "deleted" ? yield* remove(storeId, resource, doc) : yield* upsert(storeId, resource, doc)
  })
