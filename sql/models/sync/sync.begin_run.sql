-- sync.begin_run(store, command, streams, still_run, still_beat, ttl): a run's start in one statement, run on the
-- connection the run keeps for its locks (src/warehouse/run-session.ts). It takes the store's session-level advisory
-- locks (the sales one, `sync`, required; the other resources' when free), claims their leases (sync.claim_leases,
-- which fences out and retires their former holders), records the run (ending first the runs left 'running' when it
-- holds both locks: no other run is alive then) and names it in the leases, all in one transaction: no row of a run
-- that did not get its lock, none that overlaps its predecessor's. A lock whose lease it did not claim is given back
-- at once. When the sales lease is not free, it records nothing and returns that lease as it found it
-- (lease_holder, lease_beat in microseconds, lease_age in seconds, lease_running), for the caller to watch its
-- heartbeat. Session-level locks outlive a rolled-back transaction: the caller unlocks its session when this fails.
-- Five round trips (two locks, the claim, the run's row, the leases) where it now takes one.
CREATE OR REPLACE FUNCTION sync.begin_run(
  p_store text, p_command text, p_streams text[], p_still_run bigint, p_still_beat bigint, p_ttl double precision,
  OUT got_lock boolean, OUT run_id bigint, OUT days_dirty boolean, OUT leases_held text[],
  OUT lease_holder bigint, OUT lease_beat bigint, OUT lease_age double precision, OUT lease_running boolean)
LANGUAGE plpgsql
-- Planned once per session: see the comment of migration 028.
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_key integer := hashtext(p_store);
  v_resources boolean;
  v_claimed text[];
BEGIN
  got_lock := pg_try_advisory_lock(hashtext('shopsync:sync'), v_key);
  IF NOT got_lock THEN RETURN; END IF;
  v_resources := pg_try_advisory_lock(hashtext('shopsync:resources'), v_key);
  v_claimed := sync.claim_leases(p_store, CASE WHEN v_resources THEN ARRAY['sync', 'resources'] ELSE ARRAY['sync'] END,
                                 p_still_run, p_still_beat, p_ttl);
  IF v_resources AND NOT 'resources' = ANY (v_claimed) THEN
    PERFORM pg_advisory_unlock(hashtext('shopsync:resources'), v_key);
  END IF;
  IF NOT 'sync' = ANY (v_claimed) THEN
    PERFORM pg_advisory_unlock(hashtext('shopsync:sync'), v_key);
    SELECT l.holder, (extract(epoch FROM r.heartbeat_at) * 1000000)::bigint, extract(epoch FROM now() - r.heartbeat_at)::float8,
           coalesce(r.status = 'running', false)
      INTO lease_holder, lease_beat, lease_age, lease_running
      FROM sync.run_leases l LEFT JOIN sync.runs r ON r.id = l.holder
      WHERE l.store_id = p_store AND l.lock = 'sync';
    RETURN;
  END IF;
  IF 'resources' = ANY (v_claimed) THEN
    UPDATE sync.runs SET status = 'failed', outcome = 'interrupted', finished_at = coalesce(finished_at, now()),
           error = 'interrupted: the process ended before the run finished; the next run resumed from the last checkpoint'
     WHERE store_id = p_store AND status = 'running';
  END IF;
  INSERT INTO sync.runs (store_id, command, streams, heartbeat_at) VALUES (p_store, p_command, p_streams, now())
    RETURNING id INTO run_id;
  days_dirty := EXISTS (SELECT 1 FROM analytics.daily_dirty WHERE store_id = p_store);
  -- claim_leases emptied them and keeps their rows locked until this transaction ends: no other run can name itself.
  UPDATE sync.run_leases SET holder = run_id WHERE store_id = p_store AND lock = ANY (v_claimed) AND holder IS NULL;
  leases_held := v_claimed;
END $$;

COMMENT ON FUNCTION sync.begin_run(text, text, text[], bigint, bigint, double precision) IS
  'Starts a run of a store in one statement: its advisory locks, their leases claimed, its row in sync.runs; or the sales lease as found when not free.';
