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

-- 2. The merge of a page of orders (sql/load/orders.sql) writes their lines right after the orders, in the same
--    transaction, and the orders' triggers have then noted the days concerned (the old and the new day of each
--    order written): the lines' triggers noted them a second time. That merge says so for its line statements
--    (shopsync.order_lines_noted, local to its transaction), and the lines' triggers do not fire for them; any
--    other write of lines (by hand, a tool) is still noted.
DROP TRIGGER daily_days_insert ON store.order_line_items;
DROP TRIGGER daily_days_update ON store.order_line_items;
DROP TRIGGER daily_days_delete ON store.order_line_items;
CREATE TRIGGER daily_days_insert AFTER INSERT ON store.order_line_items REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT WHEN (current_setting('shopsync.order_lines_noted', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION analytics.note_line_days();
CREATE TRIGGER daily_days_update AFTER UPDATE ON store.order_line_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT WHEN (current_setting('shopsync.order_lines_noted', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION analytics.note_line_days();
CREATE TRIGGER daily_days_delete AFTER DELETE ON store.order_line_items REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT WHEN (current_setting('shopsync.order_lines_noted', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION analytics.note_line_days();

COMMENT ON FUNCTION analytics.note_line_days() IS
  'Trigger: notes the days of the orders of written order lines in analytics.daily_dirty and sync.report_days; not fired for the lines the orders merge writes with their orders (shopsync.order_lines_noted), whose days the orders'' trigger noted.';
