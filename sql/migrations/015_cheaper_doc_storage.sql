-- What a written document costs PostgreSQL (issue 14).
--
-- 1. Documents are stored without pglz. An order's document is about 4.5 KB of jsonb: over the 2 KB threshold, so
--    PostgreSQL compressed every one with pglz on the way in, more than half of what inserting a page of orders cost,
--    and decompressed it for every read. lz4 costs a fraction of pglz at a similar size; a server built without it
--    (the embedded PostgreSQL is) stores the documents out of line uncompressed instead (STORAGE EXTERNAL), about
--    twice the disk for orders. Rows written before keep their compression until they are rewritten.
DO $$
DECLARE
  t regclass;
BEGIN
  FOR t IN
    SELECT c.oid::regclass FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN ('store', 'sync') AND c.relkind = 'r' AND a.attname = 'doc' AND a.atttypid = 'jsonb'::regtype AND NOT a.attisdropped
    ORDER BY 1
  LOOP
    BEGIN
      EXECUTE format('ALTER TABLE %s ALTER COLUMN doc SET COMPRESSION lz4', t);
    EXCEPTION WHEN feature_not_supported THEN
      EXECUTE format('ALTER TABLE %s ALTER COLUMN doc SET STORAGE EXTERNAL', t);
    END;
  END LOOP;
END $$;

-- 2. An order's lines are written by one statement sequence only (sql/load/orders.sql), right after the upsert of
--    their order in the same transaction, and deleted with it (sql/load/reset.sql): the orders' triggers note the
--    same days (the old and the new day of each order written), so the lines' triggers noted them a second time.
DROP TRIGGER daily_days_insert ON store.order_line_items;
DROP TRIGGER daily_days_update ON store.order_line_items;
DROP TRIGGER daily_days_delete ON store.order_line_items;
DROP FUNCTION analytics.note_line_days();

COMMENT ON FUNCTION analytics.note_order_days() IS
  'Trigger: notes the days of written orders (and of their refunds) in analytics.daily_dirty and sync.report_days; an order''s lines are written only with their order, so this covers them too.';
