-- The documents of the scopes a refresh fetched, before sync.merge_scopes merges them into their table
-- (sql/migrations/004_store_resources.sql). One temp table per connection, emptied when the transaction ends.
CREATE TEMP TABLE IF NOT EXISTS scope_batch (
  scope     text  NOT NULL,
  key       text  NOT NULL,
  doc       jsonb NOT NULL,
  doc_hash  text  NOT NULL,
  PRIMARY KEY (scope, key)
) ON COMMIT DELETE ROWS
