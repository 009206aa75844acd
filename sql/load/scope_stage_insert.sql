-- $1 a JSON array of {"scope", "key", "doc"}. A document listed twice (it moved between pages) keeps its last copy.
INSERT INTO scope_batch (scope, key, doc, doc_hash)
SELECT x.scope, x.key, x.doc, md5(x.doc::text)
FROM jsonb_to_recordset($1::jsonb) AS x(scope text, key text, doc jsonb)
ON CONFLICT (scope, key) DO UPDATE SET doc = EXCLUDED.doc, doc_hash = EXCLUDED.doc_hash
