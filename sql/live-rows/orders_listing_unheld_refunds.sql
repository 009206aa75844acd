-- Of the orders run $2 wrote for store $1, the live ones not in the trash whose documents list a refund the warehouse
-- does not hold live. Each listed refund is looked up by its key (a subquery per listed id): as a join, planned right
-- after a backfill wrote 100,000 orders and 18,000 refunds on statistics not analyzed yet, it took 85 s.
-- The lookup takes the store from the order's row, in a LATERAL subquery kept apart (OFFSET 0): compared with $1, the
-- planner estimated the store from the statistics, and for a store they do not know yet (added to a warehouse of
-- others, loaded since the last ANALYZE) it expected one row and read every refund of the store for each listed one
-- (10,000 orders, 1,818 listed refunds: 1.0 s, then 24 ms).
-- $1 store, $2 run (the rows it wrote: synced_at at or after its start, as LiveRows.writtenInRun reads them)
SELECT DISTINCT o.id
FROM store.orders o
CROSS JOIN LATERAL unnest(o.refund_ids) AS r(id)
LEFT JOIN LATERAL (SELECT f.deleted_at IS NULL AS live FROM store.refunds f WHERE f.store_id = o.store_id AND f.id = r.id OFFSET 0) held ON true
WHERE o.store_id = $1 AND o.synced_at >= (SELECT started_at FROM sync.runs WHERE id = $2)
  AND o.deleted_at IS NULL AND o.status <> 'trash' AND held.live IS NOT TRUE
