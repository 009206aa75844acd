-- Stores without GET /refunds: the orders whose refund lists must be read besides the ones a run loaded.
--   - every live order whose document lists other refunds than the warehouse holds for it (a per-order read
--     that failed, a refund created after the order was read, a deletion seen on the order's last read);
--   - with $2 (a full pass): every live order the warehouse holds live refunds of, since deleting a refund
--     does not touch its order and only reading the order's list again shows it gone.
-- $1 store, $2 full pass (boolean)
WITH live_orders AS (
  SELECT id, refund_ids FROM store.orders WHERE store_id = $1 AND deleted_at IS NULL
), listed AS (
  SELECT o.id AS order_id, r.id AS refund_id
  FROM live_orders o CROSS JOIN LATERAL unnest(o.refund_ids) AS r(id)
), held AS (
  SELECT f.order_id, f.id AS refund_id
  FROM store.refunds f JOIN live_orders o ON o.id = f.order_id
  WHERE f.store_id = $1 AND f.deleted_at IS NULL
)
SELECT DISTINCT coalesce(listed.order_id, held.order_id) AS id
FROM listed FULL JOIN held ON held.order_id = listed.order_id AND held.refund_id = listed.refund_id
WHERE listed.order_id IS NULL OR held.order_id IS NULL OR $2::boolean
