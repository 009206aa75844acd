-- Merge the staged refunds; `parent_id` is the order (the store-wide list carries it, per-order lists get it added).
-- Without statistics of the staged page, the statements look its ids up by key and join it to no warehouse table
-- (see load/orders.sql).

-- One merge of a refund at a time: a webhook's delivery and a sync's page can carry the same new refund at once.
-- Unserialized, each saw it absent (statements below read committed data), so the second inserted its lines again
-- (23505 on the lines' key, which set a good document aside as refused) and could overwrite a newer copy with an
-- older one. Taken in id order, so two pages never wait on each other in a cycle; the statements after the lock read
-- what the other merge committed. Released at the end of the transaction.
SELECT pg_advisory_xact_lock(hashtextextended('shopsync:refunds:' || s.store_id || ':' || s.id, 0))
FROM (SELECT DISTINCT store_id, id FROM sync_batch ORDER BY store_id, id) s;

-- A refund the warehouse holds as it is would be rewritten, with its lines, for nothing. The documents are compared
-- in the output of a lookup by id, never in a filter of a scan. A filter is the planner's to order and place: as a
-- hash key the comparison made a page hash every refund's document in the store; on statistics taken while the
-- table was still small (an autovacuum's early in a backfill), the planner scanned the store's refunds by another
-- index, its `deleted_at IS NULL` matching a partial index's predicate, and compared each staged refund's document with
-- every refund before their ids (0.4 s a page at 3,000 refunds, growing with the square).
DELETE FROM sync_batch b
WHERE (SELECT r.deleted_at IS NULL AND r.doc = b.doc FROM store.refunds r WHERE r.store_id = b.store_id AND r.id = b.id);

-- Only the refunds the warehouse already holds have lines to remove.
UPDATE sync_batch b SET known = true WHERE (SELECT true FROM store.refunds r WHERE r.store_id = b.store_id AND r.id = b.id);

-- jsonb_to_record reads each document once, instead of once per `d->>'field'`.
INSERT INTO store.refunds AS r (store_id, id, order_id, date_created, date_created_local, amount, reason, refunded_by, refunded_payment, doc, synced_at, deleted_at)
SELECT b.store_id, b.id, d.parent_id,
       d.date_created_gmt AT TIME ZONE 'UTC',
       d.date_created,
       d.amount::numeric, d.reason, nullif(d.refunded_by, '')::bigint, d.refunded_payment,
       b.doc, now(), NULL
FROM sync_batch b, jsonb_to_record(b.doc) AS d(
  parent_id bigint, date_created_gmt timestamp, date_created timestamp, amount text, reason text, refunded_by text, refunded_payment boolean)
ON CONFLICT (store_id, id) DO UPDATE SET
  order_id = EXCLUDED.order_id, date_created = EXCLUDED.date_created, date_created_local = EXCLUDED.date_created_local,
  amount = EXCLUDED.amount, reason = EXCLUDED.reason, refunded_by = EXCLUDED.refunded_by,
  refunded_payment = EXCLUDED.refunded_payment, doc = EXCLUDED.doc, synced_at = EXCLUDED.synced_at, deleted_at = NULL;

-- Looked up per known refund and deleted by row address, as the orders' lines are (load/orders.sql says why).
DELETE FROM store.refund_line_items t
WHERE t.ctid = ANY (ARRAY(SELECT l.ctid FROM sync_batch b, LATERAL (SELECT ctid FROM store.refund_line_items l WHERE l.store_id = b.store_id AND l.refund_id = b.id OFFSET 0) l WHERE b.known));

INSERT INTO store.refund_line_items (store_id, id, refund_id, product_id, variation_id, name, quantity, subtotal, total, total_tax, doc)
SELECT b.store_id, (l->>'id')::bigint, b.id, (l->>'product_id')::bigint, nullif(l->>'variation_id', '')::bigint, l->>'name',
       (l->>'quantity')::numeric, coalesce(nullif(l->>'subtotal', '')::numeric, 0),
       coalesce(nullif(l->>'total', '')::numeric, 0), coalesce(nullif(l->>'total_tax', '')::numeric, 0), l
FROM sync_batch b, jsonb_array_elements(coalesce(b.doc->'line_items', '[]')) l;
