import { Effect, Schema } from "effect"
import { StoreClient } from "../store-client/client.js"
import { CATALOGUE, type StreamName } from "./catalogue.js"
import { storeNow } from "./engine.js"
import { SyncState } from "./state.js"
import { LISTINGS as ORDER_LISTINGS } from "./streams/orders.js"
import { LISTINGS as PRODUCT_LISTINGS } from "./streams/products.js"
import { type Listing, rangeParams } from "./walk.js"

/** What a sync would read of one stream, as `sync --dry-run` reports it. */
export interface DryRunStream {
  readonly stream: StreamName
  /** Where the stream stands: its cursor (UTC), "none" before its first sync, or how it reads instead. */
  readonly from: string
  /** Documents the store lists past the cursor (X-WP-Total); undefined for a stream not walked by a date. */
  readonly documents: number | undefined
  /** Pages of STORE_PER_PAGE those documents take. */
  readonly pages: number | undefined
}

interface Walked {
  readonly path: string
  readonly kind: Listing["kind"]
  readonly field: Listing["field"]
  readonly listings: ReadonlyArray<{ readonly stream: string; readonly params: Readonly<Record<string, string>> }>
}

/** The streams a sync walks by a date cursor, each listing with its own cursor in sync.state. */
const WALKED: Partial<Record<StreamName, Walked>> = {
  orders: { path: "/orders", kind: "orders", field: "modified", listings: ORDER_LISTINGS },
  refunds: { path: "/refunds", kind: "refunds", field: "created", listings: [{ stream: "refunds", params: {} }] },
  products: { path: "/products", kind: "products", field: "modified", listings: PRODUCT_LISTINGS }
}

const cursorText = (at: number | undefined) => (at === undefined ? "none (first sync: every document)" : `${new Date(at * 1000).toISOString()}`)

/** One listing: its cursor, and how many documents the store lists past it up to `upper` (one request of one row). */
const listed = (walk: Walked, listing: Walked["listings"][number], upper: number) =>
  Effect.gen(function*() {
    const [store, state] = yield* Effect.all([StoreClient, SyncState])
    const cursor = (yield* state.read(listing.stream)).cursor
    const spec: Listing = { path: walk.path, params: listing.params, field: walk.field, kind: walk.kind }
    const page = yield* store.list(walk.path, rangeParams(spec, store, cursor, upper, { size: 1, number: 1 }), Schema.Unknown)
    return { at: cursor?.at, documents: page.total }
  })

/**
 * What a sync of `streams` would read, from the cursors in sync.state and one request of one row per date-walked
 * listing (X-WP-Total): nothing is written, no lock is taken, no run recorded. The other streams are named with
 * their strategy. A walk reads the rows of the cursor's second again, so the figures are a floor, to the second.
 */
export const dryRun = Effect.fn("sync.dryRun")(function*(streams: ReadonlyArray<StreamName>) {
  const store = yield* StoreClient
  const upper = (yield* storeNow) - store.settleSeconds
  return yield* Effect.forEach(streams, (stream) => {
    const walk = WALKED[stream]
    if (walk === undefined) return Effect.succeed<DryRunStream>({ stream, from: CATALOGUE[stream].strategy, documents: undefined, pages: undefined })
    return Effect.map(Effect.forEach(walk.listings, (l) => listed(walk, l, upper)), (found): DryRunStream => {
      const documents = found.reduce((n, l) => n + l.documents, 0)
      return { stream, from: cursorText(found[0]?.at), documents, pages: found.reduce((n, l) => n + Math.ceil(l.documents / store.perPage), 0) }
    })
  })
})
