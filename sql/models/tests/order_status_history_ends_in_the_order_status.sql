-- Every order the warehouse holds has a status history, and its last status is the order's status now: the
-- triggers of migration 020 saw every write. Returns the orders whose history is missing or ends elsewhere.
SELECT o.store_id, o.id, o.status, h.status AS history_status
FROM store.orders o
LEFT JOIN analytics.order_status_history h ON h.store_id = o.store_id AND h.order_id = o.id AND h.is_current
WHERE h.status IS DISTINCT FROM o.status
