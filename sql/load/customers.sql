-- Merge the staged customers. shopsync.hashes (set by the loader): {"<id>": "<doc_hash>"}, the md5 of each
-- document's JSON text as the sync serialized it, which the full scan compares before it sends anything: an
-- unchanged store writes nothing.
INSERT INTO store.customers AS c (store_id, id, email, first_name, last_name, username, role, is_paying_customer,
                                  date_created, date_modified, billing, shipping, doc, doc_hash, synced_at, deleted_at)
SELECT b.store_id, b.id, nullif(trim(d->>'email'), ''), d->>'first_name', d->>'last_name', d->>'username', d->>'role',
       (d->>'is_paying_customer')::boolean,
       nullif(d->>'date_created_gmt', '')::timestamp AT TIME ZONE 'UTC',
       nullif(d->>'date_modified_gmt', '')::timestamp AT TIME ZONE 'UTC',
       d->'billing', d->'shipping', d, h.hashes ->> b.id::text, now(), NULL
FROM sync_batch b, LATERAL (SELECT b.doc AS d) x, (SELECT current_setting('shopsync.hashes')::jsonb AS hashes) h
ON CONFLICT (store_id, id) DO UPDATE SET
  email = EXCLUDED.email, first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
  username = EXCLUDED.username, role = EXCLUDED.role, is_paying_customer = EXCLUDED.is_paying_customer,
  date_created = EXCLUDED.date_created, date_modified = EXCLUDED.date_modified,
  billing = EXCLUDED.billing, shipping = EXCLUDED.shipping, doc = EXCLUDED.doc, doc_hash = EXCLUDED.doc_hash,
  synced_at = EXCLUDED.synced_at, deleted_at = NULL
WHERE c.doc_hash IS DISTINCT FROM EXCLUDED.doc_hash OR c.deleted_at IS NOT NULL
