-- analytics.counted_refunds: the refunds that count against sales: present in the store and belonging to a
-- counted order. `created_day` is the refund's own store-local day, which is the day it counts on (not its
-- order's); `amount` is positive, in `currency`, its order's currency. Read by analytics.day_totals.
CREATE OR REPLACE VIEW analytics.counted_refunds AS
SELECT r.store_id, r.id, r.order_id, r.created_day, r.amount, o.currency
FROM store.refunds r
JOIN analytics.counted_orders o ON o.store_id = r.store_id AND o.id = r.order_id
WHERE r.deleted_at IS NULL;

COMMENT ON VIEW analytics.counted_refunds IS
  'The refunds that count against sales: not deleted from the store, of a counted order (analytics.counted_orders); each counts on its own store-local day.';
COMMENT ON COLUMN analytics.counted_refunds.store_id IS 'The shopsync store id (STORE_ID).';
COMMENT ON COLUMN analytics.counted_refunds.id IS 'The refund''s id (API `id`).';
COMMENT ON COLUMN analytics.counted_refunds.order_id IS 'Its order (API `parent_id`).';
COMMENT ON COLUMN analytics.counted_refunds.created_day IS 'The store-local day it was made (API `date_created`, the store''s timezone): the day it counts on, not its order''s.';
COMMENT ON COLUMN analytics.counted_refunds.amount IS 'API `amount`: the amount refunded, positive; numeric, in currency.';
COMMENT ON COLUMN analytics.counted_refunds.currency IS 'Its order''s currency, ISO 4217.';
