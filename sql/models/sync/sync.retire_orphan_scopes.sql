-- sync.retire_orphan_scopes(target, store, parents): marks deleted the rows of a resource table whose scope is not the
-- key of a live top-level row (scope '') of the resource table `parents` (attribute terms of attributes, methods of
-- shipping zones). The same rule as sync.retire_orphans, without a list of every live parent sent by the caller: a
-- run whose parents did not change need not read them. Returns how many it marked.
CREATE OR REPLACE FUNCTION sync.retire_orphan_scopes(target regclass, p_store text, parents regclass) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  EXECUTE format(
    'UPDATE %s t SET deleted_at = now() WHERE t.store_id = $1 AND t.deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM %s p WHERE p.store_id = $1 AND p.scope = '''' AND p.key = t.scope AND p.deleted_at IS NULL)', target, parents
  ) USING p_store;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

COMMENT ON FUNCTION sync.retire_orphan_scopes(regclass, text, regclass) IS
  'Marks deleted the rows of a resource table whose scope is not the key of a live top-level row of the parents resource table; returns how many.';
