-- sync.retire_orphans_of(target, store, parents): marks deleted the rows of a resource table whose scope is not the
-- id of a live row of `parents` (a sales table: order notes of orders, downloads of customers). The same rule as
-- sync.retire_orphans, without a list of every live parent sent by the caller: the warehouse has them. Each row's
-- parent is looked up by its key, whatever the statistics say: a first sync writes the parents and their children in
-- one run, before any ANALYZE, and a join planned on the empty tables' statistics can compare every row with every
-- other. Returns how many it marked.
CREATE OR REPLACE FUNCTION sync.retire_orphans_of(target regclass, p_store text, parents regclass) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  EXECUTE format(
    'UPDATE %s t SET deleted_at = now() WHERE t.store_id = $1 AND t.deleted_at IS NULL
       AND (SELECT p.deleted_at IS NULL FROM %s p
            WHERE p.store_id = $1 AND p.id = CASE WHEN t.scope ~ ''^[0-9]{1,18}$'' THEN t.scope::bigint END) IS NOT TRUE', target, parents
  ) USING p_store;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

COMMENT ON FUNCTION sync.retire_orphans_of(regclass, text, regclass) IS
  'Marks deleted the rows of a resource table whose scope is not the id of a live row of the parents table; returns how many.';
