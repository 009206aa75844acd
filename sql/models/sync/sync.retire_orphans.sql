-- sync.retire_orphans(table, store, live): marks deleted the rows of a resource table whose scope is not one
-- of `live` (children of a parent that is gone). Returns how many it marked.
CREATE OR REPLACE FUNCTION sync.retire_orphans(target regclass, p_store text, live text[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  EXECUTE format(
    'UPDATE %s t SET deleted_at = now() WHERE t.store_id = $1 AND t.deleted_at IS NULL AND NOT t.scope = ANY ($2)', target
  ) USING p_store, live;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

COMMENT ON FUNCTION sync.retire_orphans(regclass, text, text[]) IS
  'Marks deleted the rows of a resource table whose scope (parent) is not one of the live ones; returns how many.';
