import { Effect, Schema } from "effect"
import { StoreClient } from "../store-client/client.js"
import { toApiGmt } from "./time.js"
import { bounds, type Listing, positionOf, stampField } from "./walk.js"

/** A listing as of a run's upper bound: how many rows it holds, and the newest one's second (null: none). */
export interface Head {
  readonly total: number
  readonly newest: number | null
}

/**
 * One request, newest first: whether a walk from the stream's cursor would find anything (a sync with nothing new
 * need not walk), and the listing's count before the upper bound, which the deletion check compares with the
 * warehouse's (so, with nothing deleted, it costs no request of its own). Only the row's id and date are asked for
 * (`_fields`): a real shop's order is kilobytes of JSON to encode, 10-25 ms of its time a head (WooCommerce 10).
 */
export const listingHead = (spec: Listing, upper: number) =>
  Effect.flatMap(StoreClient, (store) => {
    const names = bounds(spec.field)
    const params = {
      ...spec.params, [names.before]: toApiGmt(upper), dates_are_gmt: true, orderby: names.orderby, order: "desc", per_page: 1,
      _fields: `id,${stampField(spec.field)}`
    }
    return Effect.map(store.list(spec.path, params, Schema.Unknown), (page): Head => ({
      total: page.total,
      newest: page.items.length === 0 ? null : (positionOf(spec.field)(page.items[0])?.at ?? upper)
    }))
  })
