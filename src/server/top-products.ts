import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"

/** Products shown per currency. */
export const TOP_PRODUCTS = 10

/** A product (or one variation of it) over the chart's days in one currency; money and units as PostgreSQL's numeric text. */
export const TopProduct = Schema.Struct({
  currency: Schema.String,
  product_id: Schema.String,
  variation_id: Schema.String,
  /** What the store calls it (see topProducts); null for lines that name no product (0), or when nothing names it. */
  name: Schema.NullOr(Schema.String),
  quantity: Schema.String,
  gross: Schema.String,
  refunded: Schema.String,
  net: Schema.String
})
export type TopProduct = typeof TopProduct.Type

/**
 * The TOP_PRODUCTS products and variations of each currency by net sales from `first` to `last`, summed from
 * analytics.daily_product_sales (ties by id, so a page reads the same twice). Money is never summed across
 * currencies, so each currency has its own ranking: a LIMIT per currency. Names: the product's current one
 * (store.products), a variation's followed by its options as WooCommerce names its lines ("Hoodie - Blue, L");
 * for a product the warehouse does not hold, the name its latest line was sold under; none for the lines that name no product (id 0: each may have been
 * another product, so no one name is theirs).
 */
export const topProducts = (storeId: string, first: string, last: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql`
      WITH totals AS MATERIALIZED (
        SELECT currency, product_id, variation_id, max(product_name) AS product_name, sum(quantity) AS quantity,
               sum(gross) AS gross, sum(refunded) AS refunded, sum(net) AS net
        FROM analytics.daily_product_sales
        WHERE store_id = ${storeId} AND day BETWEEN ${first}::date AND ${last}::date
        GROUP BY currency, product_id, variation_id
      )
      SELECT c.currency, t.product_id::text AS product_id, t.variation_id::text AS variation_id,
             CASE
               WHEN t.product_id = 0 THEN NULL
               WHEN t.product_name IS NULL THEN (
                 SELECT li.name FROM store.order_line_items li
                 WHERE li.store_id = ${storeId} AND coalesce(li.product_id, 0) = t.product_id AND coalesce(li.variation_id, 0) = t.variation_id
                 ORDER BY li.order_id DESC LIMIT 1)
               WHEN t.variation_id = 0 THEN t.product_name
               ELSE t.product_name || coalesce(' - ' || (
                 SELECT string_agg(a.value->>'option', ', ' ORDER BY a.ordinality)
                 FROM store.product_variations v, jsonb_array_elements(v.doc->'attributes') WITH ORDINALITY a
                 WHERE v.store_id = ${storeId} AND v.id = t.variation_id AND a.value->>'option' <> ''), '')
             END AS name,
             t.quantity::text AS quantity, t.gross::text AS gross, t.refunded::text AS refunded, t.net::text AS net
      FROM (SELECT DISTINCT currency FROM totals) c
      CROSS JOIN LATERAL (
        SELECT * FROM totals WHERE totals.currency = c.currency ORDER BY net DESC, product_id, variation_id LIMIT ${TOP_PRODUCTS}
      ) t
      ORDER BY c.currency, t.net DESC, t.product_id, t.variation_id`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(TopProduct))),
      Effect.catchTag("ParseError", Effect.die)
    )
  })
