import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Either, Schema } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { sqlFile } from "../../warehouse/sql-files.js"
import type { Counts, RunContext, StreamError, StreamNeeds } from "../context.js"

const CurrentCurrency = Schema.Struct({ code: Schema.String.pipe(Schema.minLength(1)) })
const Recorded = Schema.Array(Schema.Struct({ changed: Schema.Boolean }))

/**
 * The store's currency and its timezone's UTC offsets, recorded in store.stores: one request (the currency the
 * store names) and the offsets its orders' dates carry (the API names no timezone). When the store does not
 * answer, the currency of its latest order is recorded with the offsets, and the stream then ends with the
 * store's error, so the run reports it unavailable (or failed) like any other.
 */
export const storeProfile = (ctx: RunContext): Effect.Effect<Counts, StreamError, StreamNeeds> =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const sql = yield* SqlClient.SqlClient
    const currency = yield* Effect.either(store.get("/data/currencies/current", {}, CurrentCurrency))
    const named = Either.match(currency, { onLeft: () => null, onRight: (c) => c.code })
    const [row] = yield* sql.unsafe(sqlFile("stores/record"), [ctx.storeId, named]).pipe(
      Effect.flatMap((rows) => Effect.orDie(Schema.decodeUnknown(Recorded)(rows)))
    )
    if (Either.isLeft(currency)) return yield* Effect.fail(currency.left)
    return { rows: row?.changed ? 1 : 0, deleted: 0 }
  })
