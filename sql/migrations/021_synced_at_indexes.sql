-- The children streams (order notes, customer downloads) read the parents written since they last ran from the
-- warehouse (src/sync/resources/parents.ts) instead of a set the run held in memory: these indexes keep that read
-- to the rows written, not a scan of every order and customer of the store on every run.
CREATE INDEX orders_synced_idx ON store.orders (store_id, synced_at);
CREATE INDEX customers_synced_idx ON store.customers (store_id, synced_at);

COMMENT ON TABLE store.order_notes IS
  'GET /orders/<id>/notes; stream order_notes; per order, for orders the warehouse wrote since the stream last read them (whoever wrote them: a sync, a webhook) plus a periodic full pass over every order (SHOPSYNC_CHILDREN_FULL_PASS_HOURS: a note does not change its order''s date_modified); notes of a deleted order are marked deleted.';
COMMENT ON TABLE store.customer_downloads IS
  'GET /customers/<id>/downloads; stream customer_downloads; per customer, for customers the warehouse wrote, or whose orders it wrote, since the stream last read them, plus a periodic full pass over every customer (SHOPSYNC_CHILDREN_FULL_PASS_HOURS); downloads of a deleted customer are marked deleted.';
