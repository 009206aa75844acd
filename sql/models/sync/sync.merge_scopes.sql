-- sync.merge_scopes(table, store, scopes): merges the documents staged in scope_batch (by sync.write_scope_docs)
-- for `scopes` into a resource table of migration 004 (every one shares sync.resource_rows's shape): new and
-- changed documents are written, unchanged ones are not touched, and rows of those scopes that were not staged
-- are marked deleted. Returns one row per written or deleted row with what happened to it (created, changed,
-- deleted); the resource streams' refresh reads them.
CREATE OR REPLACE FUNCTION sync.merge_scopes(target regclass, p_store text, p_scopes text[])
RETURNS TABLE (scope text, key text, change text) LANGUAGE plpgsql AS $$
BEGIN
  -- Every staged document belongs to one of p_scopes: the written ones are sync.upsert_scope_docs's.
  RETURN QUERY SELECT * FROM sync.upsert_scope_docs(target, p_store);
  RETURN QUERY EXECUTE format($q$
    UPDATE %1$s t SET deleted_at = now()
    WHERE t.store_id = $1 AND t.scope = ANY ($2) AND t.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM scope_batch b WHERE b.scope = t.scope AND b.key = t.key)
    RETURNING t.scope, t.key, 'deleted'
  $q$, target) USING p_store, p_scopes;
END $$;

COMMENT ON FUNCTION sync.merge_scopes(regclass, text, text[]) IS
  'Merges the documents staged in scope_batch for the given scopes into a resource table: new and changed written, unstaged ones marked deleted; returns what happened to each row.';
