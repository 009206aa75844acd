-- analytics.counted_refunds: the refunds that count against sales: present in the store and belonging to a
-- counted order. `created_day` is the refund's own store-local day, which is the day it counts on (not its
-- order's); `amount` is positive, in `currency`, its order's currency. Read by analytics.day_totals.
CREATE OR REPLACE VIEW analytics.counted_refunds AS
SELECT r.store_id, r.id, r.order_id, r.created_day, r.amount, o.currency
FROM store.refunds r
JOIN analytics.counted_orders o ON o.store_id = r.store_id AND o.id = r.order_id
WHERE r.deleted_at IS NULL;
