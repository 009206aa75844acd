-- sync.scope_keys(table, store, scopes): the live keys of the given scopes of a resource table, for a refresh
-- to find what disappeared before it merges.
CREATE OR REPLACE FUNCTION sync.scope_keys(target regclass, p_store text, p_scopes text[])
RETURNS TABLE (scope text, key text) LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT t.scope, t.key FROM %s t WHERE t.store_id = $1 AND t.scope = ANY ($2) AND t.deleted_at IS NULL', target
  ) USING p_store, p_scopes;
END $$;

COMMENT ON FUNCTION sync.scope_keys(regclass, text, text[]) IS
  'The live keys of the given scopes of a resource table.';
