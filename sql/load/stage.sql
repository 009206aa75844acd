-- A page of API documents is staged here, then merged into the store tables by one statement per table.
-- One temp table per connection, emptied when the page's transaction commits.
CREATE TEMP TABLE IF NOT EXISTS sync_batch (
  store_id  text   NOT NULL,
  id        bigint NOT NULL,
  doc       jsonb  NOT NULL
) ON COMMIT DELETE ROWS;
-- Documents of a few KB would be compressed on the way in and decompressed by every statement that reads
-- them; staged for one transaction, they are better kept plain (the store tables still compress).
ALTER TABLE sync_batch ALTER COLUMN doc SET STORAGE EXTERNAL
