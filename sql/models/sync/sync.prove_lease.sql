-- sync.prove_lease(store, lock, token): true when the lease of `lock` still names the run `token`; else raises
-- SQLSTATE SY001 saying who holds it now. FOR SHARE keeps the lease row until the caller's transaction ends: a run
-- taking the lease over waits for it to commit, and then sees all it wrote. A run's one-statement writes call it
-- in their WHERE (src/warehouse/lease.ts fencedStatement); its other writes prove the lease first in their transaction.
CREATE OR REPLACE FUNCTION sync.prove_lease(p_store text, p_lock text, p_token bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  current bigint;
BEGIN
  SELECT holder INTO current FROM sync.run_leases WHERE store_id = p_store AND lock = p_lock FOR SHARE;
  IF current IS DISTINCT FROM p_token THEN
    RAISE EXCEPTION USING ERRCODE = 'SY001', MESSAGE = CASE WHEN current IS NULL
      THEN format('its lease of the %s lock was released', p_lock)
      ELSE format('run %s took over its lease of the %s lock', current, p_lock) END;
  END IF;
  RETURN true;
END $$;

COMMENT ON FUNCTION sync.prove_lease(text, text, bigint) IS
  'Proves that a run still holds its lease (locked FOR SHARE until the transaction ends), or raises SY001 naming who does.';
