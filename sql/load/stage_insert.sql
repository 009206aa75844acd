-- $1 store id, $2 a JSON array of documents. A document listed twice keeps its last copy.
INSERT INTO sync_batch (store_id, id, doc)
SELECT DISTINCT ON ((d->>'id')::bigint) $1, (d->>'id')::bigint, d
FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(d, n)
ORDER BY (d->>'id')::bigint, n DESC
