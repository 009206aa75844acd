-- Records a store's currency and the UTC offsets seen on its orders in store.stores. $1 store id, $2 the currency
-- the store named (GET /data/currencies/current), NULL when it did not answer: the latest order's is taken then.
-- The offsets are read from the orders created in the year up to the latest one (a timezone with daylight saving
-- time shows both of its offsets within a year), through the orders' day index. Returns whether anything but the
-- time of recording changed.
WITH latest AS (
  SELECT max(created_day) AS day FROM store.orders WHERE store_id = $1 AND deleted_at IS NULL
), seen AS (
  SELECT (extract(epoch FROM o.date_created_local - (o.date_created AT TIME ZONE 'UTC')) / 60)::integer AS minutes, count(*) AS orders
  FROM store.orders o, latest
  WHERE o.store_id = $1 AND o.deleted_at IS NULL AND o.created_day > latest.day - 366
  GROUP BY 1
), offsets AS (
  SELECT coalesce(array_agg(CASE WHEN minutes < 0 THEN '-' ELSE '+' END || to_char(make_interval(mins => abs(minutes)), 'HH24:MI')
                            ORDER BY minutes), '{}') AS utc_offsets,
         coalesce(sum(orders), 0)::integer AS orders
  FROM seen
), last_order AS (
  SELECT currency FROM store.orders WHERE store_id = $1 AND deleted_at IS NULL ORDER BY date_modified DESC, id DESC LIMIT 1
), fresh AS (
  SELECT $1::text AS store_id,
         coalesce($2::text, (SELECT currency FROM last_order)) AS currency,
         CASE WHEN $2::text IS NOT NULL THEN 'GET /data/currencies/current'
              WHEN EXISTS (SELECT 1 FROM last_order) THEN 'latest order' ELSE 'none' END AS currency_source,
         o.utc_offsets, o.orders
  FROM offsets o
), before AS (
  SELECT currency, currency_source, utc_offsets FROM store.stores WHERE store_id = $1
), written AS (
  INSERT INTO store.stores (store_id, currency, currency_source, utc_offsets, offsets_orders, recorded_at)
  SELECT store_id, currency, currency_source, utc_offsets, orders, now() FROM fresh
  ON CONFLICT (store_id) DO UPDATE SET currency = EXCLUDED.currency, currency_source = EXCLUDED.currency_source,
    utc_offsets = EXCLUDED.utc_offsets, offsets_orders = EXCLUDED.offsets_orders, recorded_at = EXCLUDED.recorded_at
)
SELECT NOT EXISTS (
  SELECT 1 FROM before b, fresh f
  WHERE (b.currency, b.currency_source, b.utc_offsets) IS NOT DISTINCT FROM (f.currency, f.currency_source, f.utc_offsets)
) AS changed
