-- The orders that count as sales: paid-ish statuses, not trashed, still present in the store.
-- Trashed orders have status 'trash', so the status list alone excludes them.
CREATE OR REPLACE VIEW analytics.counted_orders AS
SELECT o.*
FROM store.orders o
WHERE o.status IN ('processing', 'completed', 'on-hold', 'refunded')
  AND o.deleted_at IS NULL;

-- Refunds that count against sales: not deleted in the store, belonging to a counted order.
-- Each is bucketed on its own local date (seed part 2, section 2.14), in its order's currency.
CREATE OR REPLACE VIEW analytics.counted_refunds AS
SELECT r.store_id, r.id, r.order_id, r.created_day, r.amount, o.currency
FROM store.refunds r
JOIN analytics.counted_orders o ON o.store_id = r.store_id AND o.id = r.order_id
WHERE r.deleted_at IS NULL;
