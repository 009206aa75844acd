-- sync.write_scope_docs(table, store, docs, scopes): stages `docs` (a JSON array of {scope, key, doc}; a document
-- listed twice keeps its last copy) in scope_batch, the session's temp table emptied as each transaction ends (made
-- the first time the session needs it), then merges them: with `scopes`, those scopes whole (sync.merge_scopes: the
-- rows they no longer list marked deleted); without, new and changed documents only (sync.upsert_scope_docs, a page
-- of a long list). One round trip where the table, the staging and the merge took three.
CREATE OR REPLACE FUNCTION sync.write_scope_docs(target regclass, p_store text, p_docs jsonb, p_scopes text[])
RETURNS TABLE (scope text, key text, change text) LANGUAGE plpgsql AS $$
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS scope_batch (scope text NOT NULL, key text NOT NULL, doc jsonb NOT NULL, doc_hash text NOT NULL,
                                               PRIMARY KEY (scope, key)) ON COMMIT DELETE ROWS;
  INSERT INTO scope_batch AS b (scope, key, doc, doc_hash)
  SELECT x.scope, x.key, x.doc, md5(x.doc::text) FROM jsonb_to_recordset(p_docs) AS x(scope text, key text, doc jsonb)
  ON CONFLICT ON CONSTRAINT scope_batch_pkey DO UPDATE SET doc = EXCLUDED.doc, doc_hash = EXCLUDED.doc_hash;
  IF p_scopes IS NULL THEN
    RETURN QUERY SELECT * FROM sync.upsert_scope_docs(target, p_store);
  ELSE
    RETURN QUERY SELECT * FROM sync.merge_scopes(target, p_store, p_scopes);
  END IF;
END $$;

COMMENT ON FUNCTION sync.write_scope_docs(regclass, text, jsonb, text[]) IS
  'Stages documents of a resource table in scope_batch and merges them: whole scopes (unlisted rows marked deleted), or new and changed documents only; returns what happened to each row.';
