-- sync.retire_unlisted(table, store, scope, keys): marks deleted the live rows of one scope of a resource table whose
-- key is not one of `keys` (what a paged list, read whole, listed). Returns the keys it marked.
CREATE OR REPLACE FUNCTION sync.retire_unlisted(target regclass, p_store text, p_scope text, p_keys text[])
RETURNS TABLE (key text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    UPDATE %1$s t SET deleted_at = now()
    WHERE t.store_id = $1 AND t.scope = $2 AND t.deleted_at IS NULL AND NOT t.key = ANY ($3)
    RETURNING t.key
  $q$, target) USING p_store, p_scope, p_keys;
END $$;

COMMENT ON FUNCTION sync.retire_unlisted(regclass, text, text, text[]) IS
  'Marks deleted the live rows of one scope of a resource table whose key is not among the given ones; returns their keys.';
