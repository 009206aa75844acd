-- The refunds an order's document lists, as ids beside it (issue 23). After every run the sync asks which orders it
-- wrote list a refund the warehouse does not hold (refunds restored with their order), and stores without GET
-- /refunds ask it of every live order: each asking read every such order's document out of line only to take its
-- `refunds` array (1.3 s after a backfill of 100,000 orders, at the end of the run). The merge (load/orders.sql) now
-- keeps the ids, the integer ones only: before, a `refunds` of another shape (an id that is not an integer, a value
-- that is no array of objects, from a broken or hostile shop) failed those statements, and with them every run's
-- refunds.
ALTER TABLE store.orders ADD COLUMN refund_ids bigint[] NOT NULL DEFAULT '{}';
COMMENT ON COLUMN store.orders.refund_ids IS
  'The ids of the refunds the order''s document lists (API `refunds[].id`), in its order; what is not a positive integer is left out.';

-- The orders held so far, filled as load/orders.sql fills them. Only this column changes: the triggers that note
-- the days and statuses of changed orders would find nothing to note in a statement that rewrites every refunded order.
ALTER TABLE store.orders DISABLE TRIGGER USER;
UPDATE store.orders o
SET refund_ids = ARRAY(SELECT (e->>'id')::bigint FROM jsonb_array_elements(o.doc->'refunds') AS e WHERE e->>'id' ~ '^[0-9]{1,18}$')
WHERE jsonb_typeof(o.doc->'refunds') = 'array' AND o.doc->'refunds' <> '[]';
ALTER TABLE store.orders ENABLE TRIGGER USER;
