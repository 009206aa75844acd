-- analytics.counted_orders: the orders that count as sales, with every column of store.orders. Status
-- processing, completed, on-hold or refunded (a trashed order has status 'trash', so the list alone excludes
-- it), and still present in the store (not marked deleted). Every sales figure (the daily sums, the marketing
-- contacts' facts) starts from these orders.
CREATE OR REPLACE VIEW analytics.counted_orders AS
SELECT o.*
FROM store.orders o
WHERE o.status IN ('processing', 'completed', 'on-hold', 'refunded')
  AND o.deleted_at IS NULL;
