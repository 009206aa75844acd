-- The statuses each order was seen in. store.orders keeps an order's current document only, so its earlier
-- statuses are kept here by triggers on it, as each write lands (a sync page, a webhook, a backfill): a row when
-- the warehouse first stores an order, and one whenever a write changes its status. The history therefore starts
-- when the warehouse first saw the order (a status it had and left between two reads is never seen), and for the
-- orders stored before this migration with the status they had then. analytics.order_status_history reads it.

CREATE TABLE store.order_status_log (
  store_id     text        NOT NULL,
  order_id     bigint      NOT NULL,
  seq          bigserial   NOT NULL,
  status       text        NOT NULL,
  modified_at  timestamptz NOT NULL,
  seen_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, order_id, seq)
);

COMMENT ON TABLE store.order_status_log IS
  'Every status the warehouse saw each order in: a row when it first stored the order, and one whenever a write changed its status (triggers on store.orders). History starts when the warehouse first saw the order (for orders stored before migration 020: their status then). A force-deleted order keeps its rows.';
COMMENT ON COLUMN store.order_status_log.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN store.order_status_log.order_id IS 'The order (store.orders.id, API `id`).';
COMMENT ON COLUMN store.order_status_log.seq IS 'Increases with every row written: orders the rows of one order as they were written.';
COMMENT ON COLUMN store.order_status_log.status IS 'API `status` of the document that carried it (trash included).';
COMMENT ON COLUMN store.order_status_log.modified_at IS 'API `date_modified_gmt` of that document, UTC: the status was set at or before it (a status change touches date_modified).';
COMMENT ON COLUMN store.order_status_log.seen_at IS 'When the warehouse stored that document (the writing transaction''s time, UTC).';

-- Statement triggers with transition tables, like the day triggers (003): one INSERT per page, not per row. An
-- order removed from the table (the demo empties it; the sync only marks deletions) takes its history with it.
CREATE FUNCTION store.log_order_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM store.order_status_log l USING old_rows o WHERE l.store_id = o.store_id AND l.order_id = o.id;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO store.order_status_log (store_id, order_id, status, modified_at)
    SELECT store_id, id, status, date_modified FROM new_rows ORDER BY store_id, id;
  ELSE
    INSERT INTO store.order_status_log (store_id, order_id, status, modified_at)
    SELECT n.store_id, n.id, n.status, n.date_modified
    FROM new_rows n JOIN old_rows o ON o.store_id = n.store_id AND o.id = n.id
    WHERE n.status IS DISTINCT FROM o.status
    ORDER BY n.store_id, n.id;
  END IF;
  RETURN NULL;
END $$;
COMMENT ON FUNCTION store.log_order_status() IS
  'Trigger function of store.orders: appends to store.order_status_log the orders a statement inserted and those whose status an update changed, and removes the history of orders it deleted.';

CREATE TRIGGER order_status_insert AFTER INSERT ON store.orders REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION store.log_order_status();
CREATE TRIGGER order_status_update AFTER UPDATE ON store.orders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION store.log_order_status();
CREATE TRIGGER order_status_delete AFTER DELETE ON store.orders REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION store.log_order_status();

-- The orders already stored: their history starts now, with the status they have, seen when they were last written.
INSERT INTO store.order_status_log (store_id, order_id, status, modified_at, seen_at)
SELECT store_id, id, status, date_modified, synced_at FROM store.orders ORDER BY store_id, id;
