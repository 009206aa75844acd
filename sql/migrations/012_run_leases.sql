-- The run lock's lease: which run owns a store's lock, proved by every write of that run (see src/warehouse/lease.ts).
-- The advisory lock alone lives and dies with one database session: a lost session freed it under a run that went
-- on writing. The lease outlives sessions; a run writes only while the lease names it.
CREATE TABLE sync.run_leases (
  store_id     text        NOT NULL,
  lock         text        NOT NULL,
  holder       bigint      REFERENCES sync.runs (id) ON DELETE SET NULL,
  PRIMARY KEY (store_id, lock)
);

-- The heartbeat lives on the run, not on the lease: every write of a run holds its lease row FOR SHARE, which an
-- UPDATE of that row would wait for (and make the next writes queue behind it) every 2 s.
ALTER TABLE sync.runs ADD COLUMN heartbeat_at timestamptz;

COMMENT ON TABLE sync.run_leases IS
  'Which run owns each lock of a store (the fencing token). Every write of a run first checks, in its own transaction, '
  'that the lease still names the run; a run whose lease another run took stops and writes nothing more.';
COMMENT ON COLUMN sync.run_leases.store_id IS 'The store (STORE_ID) the lock belongs to.';
COMMENT ON COLUMN sync.run_leases.lock IS
  'Which lock: ''sync'' (the sales phase of a run) or ''resources'' (the refresh of the store''s other resources).';
COMMENT ON COLUMN sync.run_leases.holder IS
  'The run (sync.runs.id) that owns the lock: the fencing token its writes prove; NULL when no run holds it.';
COMMENT ON COLUMN sync.runs.heartbeat_at IS
  'When the run last showed it was alive (every 2 s while it holds a lease). A lease whose holder''s heartbeat stopped '
  'is taken over by the next run: after 15 s, or at once when its run is no longer running, or when it stays still while watched.';
