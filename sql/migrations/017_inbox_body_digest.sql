-- A delivery replayed under new delivery ids is stored once (issue: one captured delivery re-sent 200 times made 200
-- rows of up to 1 MiB, kept 30 days). The store signs the body only, so anyone holding one signed delivery can send
-- it again with any ids: the body's digest, not the ids, says it is the same delivery. The topic is in the digest
-- because `*.deleted` bodies are just {"id": N}, the same for an order and a customer of that id; a topic shopsync
-- does not apply counts as one (the topic header is not signed, so else each made-up topic would store the body again).
-- Rows stored before this migration have none: they were never compared, so nothing is lost by leaving them out.
ALTER TABLE sync.webhook_inbox ADD COLUMN body_sha256 bytea;

CREATE UNIQUE INDEX webhook_inbox_body ON sync.webhook_inbox (store_id, body_sha256);

COMMENT ON COLUMN sync.webhook_inbox.body_sha256 IS
  'SHA-256 of the topic (a topic shopsync does not apply counts as one) and the raw body: unique per store, so a delivery re-sent with new delivery ids is stored once; NULL for rows stored before migration 017.';
