-- analytics.order_status_history: every status an order was seen in, in order, with when: the document's own
-- date_modified (the store's clock: the status was set at or before it) and when the warehouse stored it. Read from
-- store.order_status_log (migration 020), which triggers on store.orders fill as writes land, so the history
-- starts when the warehouse first saw the order; a status the order had and left between two reads is not in it.
CREATE OR REPLACE VIEW analytics.order_status_history AS
SELECT l.store_id,
       l.order_id,
       row_number() OVER w AS position,
       l.status,
       lag(l.status) OVER w AS previous_status,
       l.modified_at,
       l.seen_at,
       lead(l.modified_at) OVER w AS until_modified_at,
       lead(l.status) OVER w IS NULL AS is_current
FROM store.order_status_log l
WINDOW w AS (PARTITION BY l.store_id, l.order_id ORDER BY l.seq);

-- Its comments: sql/models/catalogue.json, applied by migrate after the models.
