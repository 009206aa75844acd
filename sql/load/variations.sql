-- Merge the staged variations; `parent_id` names the product (added by the sync when the API omits it).
INSERT INTO store.product_variations AS v (store_id, id, product_id, sku, status, price, regular_price, sale_price,
                                           stock_quantity, stock_status, date_created, date_modified, doc, synced_at, deleted_at)
SELECT b.store_id, b.id, (d->>'parent_id')::bigint, nullif(d->>'sku', ''), d->>'status',
       nullif(d->>'price', '')::numeric, nullif(d->>'regular_price', '')::numeric, nullif(d->>'sale_price', '')::numeric,
       (d->>'stock_quantity')::integer, d->>'stock_status',
       nullif(d->>'date_created_gmt', '')::timestamp AT TIME ZONE 'UTC',
       nullif(d->>'date_modified_gmt', '')::timestamp AT TIME ZONE 'UTC',
       d, now(), NULL
FROM sync_batch b, LATERAL (SELECT b.doc AS d) x
ON CONFLICT (store_id, id) DO UPDATE SET
  product_id = EXCLUDED.product_id, sku = EXCLUDED.sku, status = EXCLUDED.status, price = EXCLUDED.price,
  regular_price = EXCLUDED.regular_price, sale_price = EXCLUDED.sale_price,
  stock_quantity = EXCLUDED.stock_quantity, stock_status = EXCLUDED.stock_status,
  date_created = EXCLUDED.date_created, date_modified = EXCLUDED.date_modified,
  doc = EXCLUDED.doc, synced_at = EXCLUDED.synced_at, deleted_at = NULL
-- A document the warehouse holds as it is is not rewritten.
WHERE v.doc IS DISTINCT FROM EXCLUDED.doc OR v.deleted_at IS NOT NULL;
