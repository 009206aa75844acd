import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Either, Schema } from "effect"
import { StoreClient } from "../../store-client/client.js"
import { sqlFile } from "../../warehouse/sql-files.js"
import type { Counts, RunContext, StreamError, StreamNeeds } from "../context.js"
import { unavailableReason } from "../errors.js"

const CurrentCurrency = Schema.Struct({ code: Schema.String.pipe(Schema.minLength(1)) })
const Recorded = Schema.Array(Schema.Struct({ changed: Schema.Boolean }))

/**
 * The store's currency and its timezone's UTC offsets, recorded in store.stores: one request (the currency the
 * store names) and the offsets its orders' dates carry (the API names no timezone). A store that does not serve
 * the route gets its latest order's currency recorded with the offsets, and the stream then ends with the store's
 * answer, so the run reports it unavailable like any other; any other failure records nothing (a passing outage
 * must not replace the currency the store named).
 */
export const storeProfile = (ctx: RunContext): Effect.Effect<Counts, StreamError, StreamNeeds> =>
  Effect.gen(function*() {
    const store = yield* StoreClient
    const sql = yield* SqlClient.SqlClient
    const currency = yield* Effect.either(store.get("/data/currencies/current", {}, CurrentCurrency))
    if (Either.isLeft(currency) && unavailableReason(currency.left) === undefined) return yield* Effect.fail(currency.left)
    const named = Either.match(currency, { onLeft: () => null, onRight: (c) => c.code })
    const [row] = yield* sql.unsafe(sqlFile("stores/record"), [ctx.storeId, named]).pipe(
      Effect.flatMap((rows) => Effect.orDie(Schema.decodeUnknown(Recorded)(rows)))
    )
    if (Either.isLeft(currency)) return yield* Effect.fail(currency.left)
    return { rows: row?.changed ? 1 : 0, deleted: 0 }
  })
