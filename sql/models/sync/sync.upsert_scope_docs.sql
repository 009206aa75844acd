-- sync.upsert_scope_docs(table, store): writes the documents staged in scope_batch (by sync.write_scope_docs) into a
-- resource table of migration 004, marking nothing deleted (sync.merge_scopes adds that for whole scopes): a long
-- paged list is merged page by page, and what it no longer lists is retired once it has been read whole
-- (sync.retire_unlisted). Returns one row per written row (created or changed).
CREATE OR REPLACE FUNCTION sync.upsert_scope_docs(target regclass, p_store text)
RETURNS TABLE (scope text, key text, change text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    INSERT INTO %1$s AS t (store_id, scope, key, doc, doc_hash, first_seen_at, changed_at, deleted_at)
    SELECT $1, b.scope, b.key, b.doc, b.doc_hash, now(), now(), NULL
    FROM scope_batch b
    ON CONFLICT (store_id, scope, key) DO UPDATE
      SET doc = EXCLUDED.doc, doc_hash = EXCLUDED.doc_hash, changed_at = now(), deleted_at = NULL
      WHERE t.doc_hash IS DISTINCT FROM EXCLUDED.doc_hash OR t.deleted_at IS NOT NULL
    RETURNING t.scope, t.key, CASE WHEN t.first_seen_at = now() THEN 'created' ELSE 'changed' END
  $q$, target) USING p_store;
END $$;

COMMENT ON FUNCTION sync.upsert_scope_docs(regclass, text) IS
  'Writes the documents staged in scope_batch into a resource table (new and changed only, nothing marked deleted); returns what happened to each written row.';
