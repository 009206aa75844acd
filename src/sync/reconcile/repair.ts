import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Schema } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { isGone } from "../../store-client/errors.js"
import { Loader } from "../../warehouse/loader.js"
import { mayHoldNul } from "../../warehouse/screen.js"
import { hashed } from "../streams/customers.js"
import { fromApiGmt } from "../time.js"
import type { Listed, ListingSpec } from "./listing.js"
import type { ResourceSpec } from "./resources.js"

const Single = Schema.Struct({
  id: Schema.Int,
  status: Schema.optional(Schema.NullOr(Schema.String)),
  date_modified_gmt: Schema.optional(Schema.NullOr(Schema.String)),
  date_created_gmt: Schema.optional(Schema.NullOr(Schema.String))
})

/**
 * The rows no listing had, each asked for by its own GET: a 404 (`woocommerce_rest_<type>_invalid_id`) is the
 * only proof a row was deleted for good; a row the GET still finds was shifted out of the listing while it was
 * read, and is returned as listed, to be compared like the others.
 */
export const confirmGone = Effect.fn("reconcile.confirmGone")(function*(spec: ResourceSpec, ids: ReadonlyArray<number>) {
  const store = yield* StoreClient
  const stamp = spec.listings[0]!.stamp
  const found = yield* Effect.forEach(ids, (id) =>
    store.get(`${spec.path}/${id}`, { _fields: `id,status,${stamp}` }, Single).pipe(
      Effect.map((row) => {
        const at = row[stamp]
        return Option.some<Listed>({ id, at: at ? fromApiGmt(at) : null, trash: row.status === "trash" })
      }),
      Effect.catchIf(isGone, () => Effect.succeed(Option.none<Listed>()))
    ), { concurrency: store.concurrency })
  const still = found.flatMap(Option.toArray)
  const present = new Set(still.map((r) => r.id))
  return { gone: ids.filter((id) => !present.has(id)), still }
})

/** The listing a row was seen in: a trashed order is only read with status=trash, `include` or not. */
const listingOf = (spec: ResourceSpec, row: Listed): ListingSpec => spec.listings.find((l) => l.trash === row.trash) ?? spec.listings[0]!

/**
 * Reads `rows` again whole, by `include` (a page's worth of ids per request, per listing), and loads them through
 * the Loader as a sync would (each page in its transaction; the tables' triggers note the days for the daily
 * sums). Returns how many documents were loaded.
 */
export const reload = Effect.fn("reconcile.reload")(function*(spec: ResourceSpec, rows: ReadonlyArray<Listed>) {
  const [store, loader, sql] = yield* Effect.all([StoreClient, Loader, SqlClient.SqlClient])
  const chunks = spec.listings.flatMap((listing) => {
    const ids = rows.filter((r) => listingOf(spec, r) === listing).map((r) => r.id)
    return Array.from({ length: Math.ceil(ids.length / store.perPage) }, (_, i) => ({ listing, ids: ids.slice(i * store.perPage, (i + 1) * store.perPage) }))
  })
  const loaded = yield* Effect.forEach(chunks, ({ listing, ids }) =>
    Effect.gen(function*() {
      const page = yield* store.list(spec.path, { ...listing.params, include: ids.join(","), per_page: store.perPage }, Schema.Unknown)
      const { docs, rejected, cleaned } = spec.screen(page.items, mayHoldNul(page.json))
      const hashes = spec.kind === "customers" ? Object.fromEntries(docs.map((d) => [d.id, hashed(d).hash])) : undefined
      yield* sql.withTransaction(loader.load({ kind: spec.kind, docs, rejected, cleaned, ...(hashes ? { hashes } : {}) }))
      return docs.length
    }), { concurrency: store.concurrency })
  return loaded.reduce((n, c) => n + c, 0)
})
