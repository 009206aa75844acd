-- analytics.counted_orders: the orders that count as sales, with every column of store.orders. Status
-- processing, completed, on-hold or refunded (a trashed order has status 'trash', so the list alone excludes
-- it), and still present in the store (not marked deleted). Every sales figure (the daily sums, the marketing
-- contacts' facts) starts from these orders.
CREATE OR REPLACE VIEW analytics.counted_orders AS
SELECT o.*
FROM store.orders o
WHERE o.status IN ('processing', 'completed', 'on-hold', 'refunded')
  AND o.deleted_at IS NULL;

COMMENT ON VIEW analytics.counted_orders IS
  'The orders that count as sales: status processing, completed, on-hold or refunded, not deleted from the store; every column of store.orders. Money is numeric in the order''s currency.';
-- Its columns are store.orders's: they carry that table's comments.
DO $$
DECLARE
  c record;
BEGIN
  FOR c IN SELECT attname, col_description(attrelid, attnum) AS text FROM pg_attribute
           WHERE attrelid = 'store.orders'::regclass AND attnum > 0 AND NOT attisdropped LOOP
    EXECUTE format('COMMENT ON COLUMN analytics.counted_orders.%I IS %L', c.attname, c.text);
  END LOOP;
END $$;
