-- sync.live_rows(table, store): how many rows of a store a warehouse table holds (live ones, where the table
-- marks deletions): what `shopsync status` shows beside each stream.
CREATE OR REPLACE FUNCTION sync.live_rows(tbl regclass, store text) RETURNS bigint
LANGUAGE plpgsql STABLE STRICT AS $$
DECLARE
  n bigint;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = tbl AND attname = 'deleted_at' AND NOT attisdropped) THEN
    EXECUTE format('SELECT count(*) FROM %s WHERE store_id = $1 AND deleted_at IS NULL', tbl) INTO n USING store;
  ELSE
    EXECUTE format('SELECT count(*) FROM %s WHERE store_id = $1', tbl) INTO n USING store;
  END IF;
  RETURN n;
END
$$;

COMMENT ON FUNCTION sync.live_rows(regclass, text) IS
  'How many rows of a store a warehouse table holds (live ones, where it marks deletions): what shopsync status shows.';
