-- Merge the staged orders. The staged page is not analyzed, so no statement joins it to a warehouse table: without
-- statistics of the page (or with a table's taken while it was small) the planner could hash the whole table, a cost
-- growing with the store. Each statement looks the page's ids up by key: a subquery per staged row, or an array of
-- ids that an index scan takes.

-- One merge of a order at a time: a webhook's delivery and a sync's page can carry the same new order at once.
-- Unserialized, each saw it absent (statements below read committed data), so the second inserted its lines again
-- (23505 on the lines' key, which set a good document aside as refused) and could overwrite a newer copy with an
-- older one. Taken in id order, so two pages never wait on each other in a cycle; the statements after the lock read
-- what the other merge committed. Released at the end of the transaction.
SELECT pg_advisory_xact_lock(hashtextextended('shopsync:orders:' || s.store_id || ':' || s.id, 0))
FROM (SELECT DISTINCT store_id, id FROM sync_batch ORDER BY store_id, id) s;

-- A staged copy older than the warehouse's (a sync page behind a webhook's delivery) is dropped, and so is one the
-- warehouse holds as it is (a re-read page, a sync after a backfill): rewriting it and its lines would change nothing.
-- A backfill's page (shopsync.replace on, set by the loader) replaces whatever differs, whatever its date: a copy
-- dated in the future (forged, or a wrong clock) would else outrank the store's for good. A delivery applied while the
-- backfill read its page can be undone by it; that order's date is past every sync cursor, so the next sync reads it.
-- The test is the output of a lookup by id, never a filter of a scan: see load/refunds.sql.
DELETE FROM sync_batch b
WHERE (SELECT (o.date_modified > ((b.doc->>'date_modified_gmt')::timestamp AT TIME ZONE 'UTC') AND current_setting('shopsync.replace', true) IS DISTINCT FROM 'on')
              OR (o.deleted_at IS NULL AND o.doc = b.doc)
       FROM store.orders o WHERE o.store_id = b.store_id AND o.id = b.id);

-- Only the orders the warehouse already holds have lines to remove (none, in a backfill of a new warehouse).
UPDATE sync_batch b SET known = true WHERE (SELECT true FROM store.orders o WHERE o.store_id = b.store_id AND o.id = b.id);

INSERT INTO store.orders AS o (
  store_id, id, parent_id, number, status, currency, created_via,
  date_created, date_created_local, date_modified, date_paid, date_completed,
  customer_id, billing_email, billing, shipping, payment_method, prices_include_tax,
  discount_total, discount_tax, shipping_total, shipping_tax, cart_tax, total, total_tax,
  refund_ids, doc, synced_at, deleted_at)
-- jsonb_to_record reads each document once; `d->>'field'` per column would fetch it again for every field.
SELECT
  b.store_id, b.id, coalesce(d.parent_id, 0), d.number, d.status, d.currency, d.created_via,
  d.date_created_gmt AT TIME ZONE 'UTC',
  d.date_created,
  d.date_modified_gmt AT TIME ZONE 'UTC',
  nullif(d.date_paid_gmt, '')::timestamp AT TIME ZONE 'UTC',
  nullif(d.date_completed_gmt, '')::timestamp AT TIME ZONE 'UTC',
  coalesce(d.customer_id, 0),
  nullif(trim(d.billing->>'email'), ''),
  d.billing, d.shipping, d.payment_method, d.prices_include_tax,
  coalesce(nullif(d.discount_total, '')::numeric, 0),
  coalesce(nullif(d.discount_tax, '')::numeric, 0),
  coalesce(nullif(d.shipping_total, '')::numeric, 0),
  coalesce(nullif(d.shipping_tax, '')::numeric, 0),
  coalesce(nullif(d.cart_tax, '')::numeric, 0),
  d.total::numeric,
  coalesce(nullif(d.total_tax, '')::numeric, 0),
  -- The refunds it lists, for the refunds stream's checks (migration 025): ids that are positive integers only, so
  -- a `refunds` of another shape fails no statement that reads them.
  ARRAY(SELECT (e->>'id')::bigint FROM jsonb_array_elements(CASE WHEN jsonb_typeof(d.refunds) = 'array' THEN d.refunds ELSE '[]' END) AS e
        WHERE e->>'id' ~ '^[0-9]{1,18}$'),
  b.doc, now(), NULL
FROM sync_batch b, jsonb_to_record(b.doc) AS d(
  parent_id bigint, number text, status text, currency text, created_via text,
  date_created_gmt timestamp, date_created timestamp, date_modified_gmt timestamp, date_paid_gmt text, date_completed_gmt text,
  customer_id bigint, billing jsonb, shipping jsonb, payment_method text, prices_include_tax boolean,
  discount_total text, discount_tax text, shipping_total text, shipping_tax text, cart_tax text, total text, total_tax text,
  refunds jsonb)
ON CONFLICT (store_id, id) DO UPDATE SET
  parent_id = EXCLUDED.parent_id, number = EXCLUDED.number, status = EXCLUDED.status,
  currency = EXCLUDED.currency, created_via = EXCLUDED.created_via,
  date_created = EXCLUDED.date_created, date_created_local = EXCLUDED.date_created_local,
  date_modified = EXCLUDED.date_modified, date_paid = EXCLUDED.date_paid, date_completed = EXCLUDED.date_completed,
  customer_id = EXCLUDED.customer_id, billing_email = EXCLUDED.billing_email,
  billing = EXCLUDED.billing, shipping = EXCLUDED.shipping, payment_method = EXCLUDED.payment_method,
  prices_include_tax = EXCLUDED.prices_include_tax,
  discount_total = EXCLUDED.discount_total, discount_tax = EXCLUDED.discount_tax,
  shipping_total = EXCLUDED.shipping_total, shipping_tax = EXCLUDED.shipping_tax,
  cart_tax = EXCLUDED.cart_tax, total = EXCLUDED.total, total_tax = EXCLUDED.total_tax,
  refund_ids = EXCLUDED.refund_ids, doc = EXCLUDED.doc, synced_at = EXCLUDED.synced_at, deleted_at = NULL;

-- Lines belong to their order's current version: replace them wholesale. Their days are those of their orders,
-- which the orders' trigger just noted: the lines' triggers need not note them again (migration 015).
SELECT set_config('shopsync.order_lines_noted', 'on', true);

-- Each known order's lines are looked up by (store, order) and deleted by their row addresses. `store_id =
-- current_setting(...)` beside the ids made the planner estimate the store from the statistics; for a store they do
-- not know yet (added to a warehouse of others, growing between two ANALYZEs) it expected one row and scanned every
-- line of the store by the primary key for each page, a cost growing with the store. OFFSET 0 keeps the lookup a
-- subquery run per staged order, so no statistics can turn it into a scan.

DELETE FROM store.order_line_items t
WHERE t.ctid = ANY (ARRAY(SELECT l.ctid FROM sync_batch b, LATERAL (SELECT ctid FROM store.order_line_items l WHERE l.store_id = b.store_id AND l.order_id = b.id OFFSET 0) l WHERE b.known));
DELETE FROM store.order_tax_lines t
WHERE t.ctid = ANY (ARRAY(SELECT l.ctid FROM sync_batch b, LATERAL (SELECT ctid FROM store.order_tax_lines l WHERE l.store_id = b.store_id AND l.order_id = b.id OFFSET 0) l WHERE b.known));
DELETE FROM store.order_shipping_lines t
WHERE t.ctid = ANY (ARRAY(SELECT l.ctid FROM sync_batch b, LATERAL (SELECT ctid FROM store.order_shipping_lines l WHERE l.store_id = b.store_id AND l.order_id = b.id OFFSET 0) l WHERE b.known));
DELETE FROM store.order_fee_lines t
WHERE t.ctid = ANY (ARRAY(SELECT l.ctid FROM sync_batch b, LATERAL (SELECT ctid FROM store.order_fee_lines l WHERE l.store_id = b.store_id AND l.order_id = b.id OFFSET 0) l WHERE b.known));
DELETE FROM store.order_coupon_lines t
WHERE t.ctid = ANY (ARRAY(SELECT l.ctid FROM sync_batch b, LATERAL (SELECT ctid FROM store.order_coupon_lines l WHERE l.store_id = b.store_id AND l.order_id = b.id OFFSET 0) l WHERE b.known));

INSERT INTO store.order_line_items (store_id, id, order_id, product_id, variation_id, name, sku, quantity, price, subtotal, subtotal_tax, total, total_tax, doc)
SELECT b.store_id, (l->>'id')::bigint, b.id, (l->>'product_id')::bigint, nullif(l->>'variation_id', '')::bigint,
       l->>'name', l->>'sku', (l->>'quantity')::numeric, nullif(l->>'price', '')::numeric,
       coalesce(nullif(l->>'subtotal', '')::numeric, 0), coalesce(nullif(l->>'subtotal_tax', '')::numeric, 0),
       coalesce(nullif(l->>'total', '')::numeric, 0), coalesce(nullif(l->>'total_tax', '')::numeric, 0), l
FROM sync_batch b, jsonb_array_elements(coalesce(b.doc->'line_items', '[]')) l;

INSERT INTO store.order_tax_lines (store_id, id, order_id, rate_code, rate_id, label, compound, tax_total, shipping_tax_total, doc)
SELECT b.store_id, (l->>'id')::bigint, b.id, l->>'rate_code', (l->>'rate_id')::bigint, l->>'label', (l->>'compound')::boolean,
       coalesce(nullif(l->>'tax_total', '')::numeric, 0), coalesce(nullif(l->>'shipping_tax_total', '')::numeric, 0), l
FROM sync_batch b, jsonb_array_elements(coalesce(b.doc->'tax_lines', '[]')) l;

INSERT INTO store.order_shipping_lines (store_id, id, order_id, method_id, method_title, total, total_tax, doc)
SELECT b.store_id, (l->>'id')::bigint, b.id, l->>'method_id', l->>'method_title',
       coalesce(nullif(l->>'total', '')::numeric, 0), coalesce(nullif(l->>'total_tax', '')::numeric, 0), l
FROM sync_batch b, jsonb_array_elements(coalesce(b.doc->'shipping_lines', '[]')) l;

INSERT INTO store.order_fee_lines (store_id, id, order_id, name, tax_class, tax_status, total, total_tax, doc)
SELECT b.store_id, (l->>'id')::bigint, b.id, l->>'name', l->>'tax_class', l->>'tax_status',
       coalesce(nullif(l->>'total', '')::numeric, 0), coalesce(nullif(l->>'total_tax', '')::numeric, 0), l
FROM sync_batch b, jsonb_array_elements(coalesce(b.doc->'fee_lines', '[]')) l;

INSERT INTO store.order_coupon_lines (store_id, id, order_id, code, discount, discount_tax, doc)
SELECT b.store_id, (l->>'id')::bigint, b.id, l->>'code',
       coalesce(nullif(l->>'discount', '')::numeric, 0), coalesce(nullif(l->>'discount_tax', '')::numeric, 0), l
FROM sync_batch b, jsonb_array_elements(coalesce(b.doc->'coupon_lines', '[]')) l;

SELECT set_config('shopsync.order_lines_noted', 'off', true);
