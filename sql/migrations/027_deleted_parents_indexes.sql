-- The orders and customers marked deleted since a children stream's mark (sync.retire_orphans_since): an index of the
-- deleted rows alone, small beside the live ones.
CREATE INDEX orders_deleted_idx ON store.orders (store_id, deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX customers_deleted_idx ON store.customers (store_id, deleted_at) WHERE deleted_at IS NOT NULL;
