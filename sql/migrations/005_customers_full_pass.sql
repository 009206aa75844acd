-- The customers full scan keeps its time under the key every periodic full pass uses (src/sync/full-pass.ts),
-- so one rule decides when a pass is due and `status` reads one key.
UPDATE sync.state
SET details = (details - 'lastFullScan') || jsonb_build_object('lastFullPass', details->'lastFullScan')
WHERE stream = 'customers' AND details ? 'lastFullScan';
