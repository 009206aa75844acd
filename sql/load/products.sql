-- Merge the staged products.
INSERT INTO store.products AS p (store_id, id, parent_id, name, slug, sku, type, status, price, regular_price, sale_price,
                                 stock_quantity, stock_status, date_created, date_modified, doc, synced_at, deleted_at)
SELECT b.store_id, b.id, coalesce((d->>'parent_id')::bigint, 0), d->>'name', d->>'slug', nullif(d->>'sku', ''), d->>'type', d->>'status',
       nullif(d->>'price', '')::numeric, nullif(d->>'regular_price', '')::numeric, nullif(d->>'sale_price', '')::numeric,
       (d->>'stock_quantity')::integer, d->>'stock_status',
       nullif(d->>'date_created_gmt', '')::timestamp AT TIME ZONE 'UTC',
       (d->>'date_modified_gmt')::timestamp AT TIME ZONE 'UTC',
       d, now(), NULL
FROM sync_batch b, LATERAL (SELECT b.doc AS d) x
ON CONFLICT (store_id, id) DO UPDATE SET
  parent_id = EXCLUDED.parent_id, name = EXCLUDED.name, slug = EXCLUDED.slug, sku = EXCLUDED.sku, type = EXCLUDED.type,
  status = EXCLUDED.status, price = EXCLUDED.price, regular_price = EXCLUDED.regular_price, sale_price = EXCLUDED.sale_price,
  stock_quantity = EXCLUDED.stock_quantity, stock_status = EXCLUDED.stock_status,
  date_created = EXCLUDED.date_created, date_modified = EXCLUDED.date_modified,
  doc = EXCLUDED.doc, synced_at = EXCLUDED.synced_at, deleted_at = NULL
-- A document the warehouse holds as it is is not rewritten.
WHERE p.doc IS DISTINCT FROM EXCLUDED.doc OR p.deleted_at IS NOT NULL;
