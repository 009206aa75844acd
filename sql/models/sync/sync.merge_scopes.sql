-- sync.merge_scopes(table, store, scopes): merges the documents staged in scope_batch (sql/load/scope_stage.sql)
-- for `scopes` into a resource table of migration 004 (every one shares sync.resource_rows's shape): new and
-- changed documents are written, unchanged ones are not touched, and rows of those scopes that were not staged
-- are marked deleted. Returns one row per written or deleted row with what happened to it (created, changed,
-- deleted); the resource streams' refresh reads them.
CREATE OR REPLACE FUNCTION sync.merge_scopes(target regclass, p_store text, p_scopes text[])
RETURNS TABLE (scope text, key text, change text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    WITH written AS (
      INSERT INTO %1$s AS t (store_id, scope, key, doc, doc_hash, first_seen_at, changed_at, deleted_at)
      SELECT $1, b.scope, b.key, b.doc, b.doc_hash, now(), now(), NULL
      FROM scope_batch b
      WHERE b.scope = ANY ($2)
      ON CONFLICT (store_id, scope, key) DO UPDATE
        SET doc = EXCLUDED.doc, doc_hash = EXCLUDED.doc_hash, changed_at = now(), deleted_at = NULL
        WHERE t.doc_hash IS DISTINCT FROM EXCLUDED.doc_hash OR t.deleted_at IS NOT NULL
      RETURNING t.scope, t.key, CASE WHEN t.first_seen_at = now() THEN 'created' ELSE 'changed' END
    ), gone AS (
      UPDATE %1$s t SET deleted_at = now()
      WHERE t.store_id = $1 AND t.scope = ANY ($2) AND t.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM scope_batch b WHERE b.scope = t.scope AND b.key = t.key)
      RETURNING t.scope, t.key, 'deleted'
    )
    SELECT * FROM written UNION ALL SELECT * FROM gone
  $q$, target) USING p_store, p_scopes;
END $$;

COMMENT ON FUNCTION sync.merge_scopes(regclass, text, text[]) IS
  'Merges the documents staged in scope_batch for the given scopes into a resource table: new and changed written, unstaged ones marked deleted; returns what happened to each row.';
