-- sync.retire_orphans_of(target, store, parents): marks deleted the rows of a resource table whose scope is not the
-- id of a live row of `parents` (a sales table: order notes of orders, downloads of customers). The same rule as
-- sync.retire_orphans, without a list of every live parent sent by the caller: the warehouse has them. Each row's
-- parent is looked up by its key, whatever the statistics say: a first sync writes the parents and their children in
-- one run, before any ANALYZE, and a join planned on the empty tables' statistics can compare every row with every
-- other. The lookup takes the store from the child's row, in a LATERAL subquery kept apart (OFFSET 0), and the rows
-- found are marked by their addresses: compared with the store's id as a value, the planner estimated the store from
-- the statistics, and for one they do not know yet (a first sync in a warehouse of other stores) it expected one row
-- and read every order of the store for each note (10,000 orders, 1,987 notes: 43.6 s). Returns how many it marked.
CREATE OR REPLACE FUNCTION sync.retire_orphans_of(target regclass, p_store text, parents regclass) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  EXECUTE format(
    'UPDATE %1$s t SET deleted_at = now() WHERE t.ctid = ANY (ARRAY(
       SELECT c.ctid FROM %1$s c
       LEFT JOIN LATERAL (SELECT p.deleted_at IS NULL AS live FROM %2$s p
                          WHERE p.store_id = c.store_id AND p.id = CASE WHEN c.scope ~ ''^[0-9]{1,18}$'' THEN c.scope::bigint END
                          OFFSET 0) parent ON true
       WHERE c.store_id = $1 AND c.deleted_at IS NULL AND parent.live IS NOT TRUE))
     AND t.deleted_at IS NULL', target, parents
  ) USING p_store;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

COMMENT ON FUNCTION sync.retire_orphans_of(regclass, text, regclass) IS
  'Marks deleted the rows of a resource table whose scope is not the id of a live row of the parents table; returns how many.';
