-- sync.claim_leases(store, locks, still_run, still_beat, ttl): claims, in the caller's one statement, the leases of
-- `locks` that are free (src/warehouse/lease.ts isFree says the same): nobody holds it, its run ended, its heartbeat
-- is older than `ttl` seconds or missing, or its holder is `still_run` whose heartbeat has not moved past
-- `still_beat` (microseconds) since it was watched. The first lock is required: when it is not free nothing is
-- claimed. Each lease claimed is emptied (its holder fenced out from now on), and a holder fenced out is recorded as
-- ended unless it still holds a live lease. Returns the locks claimed. One round trip where a loop over the locks
-- took eight.
CREATE OR REPLACE FUNCTION sync.claim_leases(p_store text, p_locks text[], p_still_run bigint, p_still_beat bigint, p_ttl double precision)
RETURNS text[] LANGUAGE plpgsql
-- Planned once per session: see the comment of migration 028.
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_lock text;
  v_holder bigint;
  v_beat bigint;
  v_age double precision;
  v_running boolean;
  v_claimed text[] := '{}';
  v_before bigint[] := '{}';
BEGIN
  FOREACH v_lock IN ARRAY p_locks LOOP
    INSERT INTO sync.run_leases (store_id, lock) VALUES (p_store, v_lock) ON CONFLICT DO NOTHING;
    SELECT l.holder, (extract(epoch FROM r.heartbeat_at) * 1000000)::bigint, extract(epoch FROM now() - r.heartbeat_at)::float8,
           coalesce(r.status = 'running', false)
      INTO v_holder, v_beat, v_age, v_running
      FROM sync.run_leases l LEFT JOIN sync.runs r ON r.id = l.holder
      WHERE l.store_id = p_store AND l.lock = v_lock
      FOR UPDATE OF l;
    -- coalesce: without a watched holder (NULL) the last test is NULL, and NOT (false OR NULL) is NULL, not true.
    IF NOT (v_holder IS NULL OR NOT v_running OR v_age IS NULL OR v_age > p_ttl
            OR coalesce(v_holder = p_still_run AND v_beat <= p_still_beat, false)) THEN
      IF cardinality(v_claimed) = 0 THEN RETURN v_claimed; END IF;
      CONTINUE;
    END IF;
    v_claimed := v_claimed || v_lock;
    IF v_holder IS NOT NULL THEN v_before := v_before || v_holder; END IF;
    UPDATE sync.run_leases SET holder = NULL WHERE store_id = p_store AND lock = v_lock;
  END LOOP;
  -- A run whose lease was taken over ended then, unless it still holds a live lease (its other resources): its row
  -- must not overlap the next run's in sync.runs, and its own end, if it comes, changes nothing.
  UPDATE sync.runs r SET status = 'failed', outcome = 'interrupted', finished_at = now(),
         error = 'interrupted: its heartbeat stopped before the run finished (the process ended, or lost the warehouse), so the next run ' ||
                 'took its lock over and resumed from the last checkpoints'
   WHERE r.id = ANY(v_before) AND r.status = 'running' AND NOT (
     r.heartbeat_at > now() - make_interval(secs => p_ttl) AND EXISTS (SELECT 1 FROM sync.run_leases l WHERE l.holder = r.id));
  RETURN v_claimed;
END $$;

COMMENT ON FUNCTION sync.claim_leases(text, text[], bigint, bigint, double precision) IS
  'Claims the free leases of a store''s run locks (the first required), fencing out and retiring their former holders; returns the locks claimed.';
