-- A store's inbox has a size bound (SHOPSYNC_INBOX_MAX_MB, issue 20): intake compares the bodies it holds with it
-- before every delivery. Summing them each time would read the store's whole inbox; this row per store, kept by
-- statement triggers (one update per INSERT or DELETE statement, however many rows), answers at once.
CREATE TABLE sync.webhook_inbox_usage (
  store_id    text   PRIMARY KEY,
  deliveries  bigint NOT NULL,
  bytes       bigint NOT NULL
);

INSERT INTO sync.webhook_inbox_usage (store_id, deliveries, bytes)
SELECT store_id, count(*), sum(octet_length(body)) FROM sync.webhook_inbox GROUP BY store_id;

CREATE FUNCTION sync.count_inbox_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sync.webhook_inbox_usage AS u (store_id, deliveries, bytes)
  SELECT store_id, count(*), sum(octet_length(body)) FROM added GROUP BY store_id
  ON CONFLICT (store_id) DO UPDATE SET deliveries = u.deliveries + EXCLUDED.deliveries, bytes = u.bytes + EXCLUDED.bytes;
  RETURN NULL;
END $$;

CREATE FUNCTION sync.count_inbox_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sync.webhook_inbox_usage u SET deliveries = u.deliveries - r.n, bytes = u.bytes - r.size
  FROM (SELECT store_id, count(*) AS n, sum(octet_length(body)) AS size FROM removed GROUP BY store_id) r
  WHERE u.store_id = r.store_id;
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_inbox_added AFTER INSERT ON sync.webhook_inbox
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION sync.count_inbox_added();
CREATE TRIGGER webhook_inbox_removed AFTER DELETE ON sync.webhook_inbox
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION sync.count_inbox_removed();

COMMENT ON TABLE sync.webhook_inbox_usage IS
  'What each store''s webhook inbox holds, kept by triggers on sync.webhook_inbox: intake refuses a delivery (503) that would take it past SHOPSYNC_INBOX_MAX_MB.';
COMMENT ON COLUMN sync.webhook_inbox_usage.store_id IS 'The store whose deliveries these are.';
COMMENT ON COLUMN sync.webhook_inbox_usage.deliveries IS 'Deliveries of the store in sync.webhook_inbox, in any state.';
COMMENT ON COLUMN sync.webhook_inbox_usage.bytes IS 'The sum of their bodies'' lengths in bytes (octet_length).';
COMMENT ON FUNCTION sync.count_inbox_added() IS 'Adds the rows an INSERT into sync.webhook_inbox stored to their stores'' usage.';
COMMENT ON FUNCTION sync.count_inbox_removed() IS 'Takes the rows a DELETE from sync.webhook_inbox removed off their stores'' usage.';
